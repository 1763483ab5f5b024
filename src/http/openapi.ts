// /v1/openapi.json, generated from the routes as they are registered, so it cannot drift.
export interface QueryParameter {
  name: string;
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

export interface RequestBodyDoc {
  contentType: string;
  schema: Record<string, unknown>;
}

export interface RouteDoc {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  /** h3 style: /v1/events/:id */
  path: string;
  summary: string;
  tag: string;
  auth: boolean;
  query?: QueryParameter[];
  /** The body, or each form a route takes (e.g. multipart and JSON). */
  requestBody?: RequestBodyDoc | RequestBodyDoc[];
  responses: Record<number, string>;
}

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details', 'request_id'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } },
        },
        request_id: { type: 'string' },
      },
    },
  },
};

export function buildOpenApi(routes: RouteDoc[], serverUrl: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const pathParams = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const responses: Record<string, unknown> = {};
    // Every authenticated route can answer these (the host checks the key and its rate first).
    const common: Record<number, string> = route.auth ? { 401: 'unauthorized', 429: 'rate_limited (Retry-After)' } : {};
    for (const [status, description] of Object.entries({ ...common, ...route.responses })) {
      responses[status] =
        Number(status) >= 400 ? { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } : { description };
    }
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      summary: route.summary,
      tags: [route.tag],
      security: route.auth ? [{ bearer: [] }] : [],
      parameters: [...pathParams, ...(route.query ?? []).map((q) => ({ ...q, in: 'query' }))],
      ...(route.requestBody ? { requestBody: { required: true, content: requestContent(route.requestBody) } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Faultline API', version },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'fl_live_… (production data) or fl_test_… (sandbox data)' } },
      schemas: { Error: errorSchema },
    },
    paths,
  };
}

function requestContent(body: RequestBodyDoc | RequestBodyDoc[]): Record<string, { schema: Record<string, unknown> }> {
  return Object.fromEntries((Array.isArray(body) ? body : [body]).map(({ contentType, schema }) => [contentType, { schema }]));
}
