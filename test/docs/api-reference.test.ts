// docs/api.md and /v1/openapi.json describe the same routes: the real service (the embedded
// default configuration) is started and its OpenAPI document fetched; every path and method in it
// must be documented in docs/api.md, and every route docs/api.md names must be in it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { startService, type TestService } from '../support/service.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** `GET /v1/events/{id}`: a method, then a path up to a space, backtick, bracket, comma or query. Linear: one class per part. */
const ROUTE = /\b(GET|POST|PUT|PATCH|DELETE) (\/[A-Za-z0-9_.{}/-]*)/g;
/** In a heading, a method alone after a route is another method of that route: `GET /v1/monitors/{slug}, PATCH, DELETE`. */
const HEADING_METHOD = /(?:,|\band)\s+(GET|POST|PUT|PATCH|DELETE)\b(?! \/)/g;

/** `METHOD /path` for every route docs/api.md names, headings' bare methods included. */
export function documentedRoutes(markdown: string): Set<string> {
  const routes = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    // Shell examples name routes through their URLs, which are checked by test/docs/examples.test.ts.
    if (inFence) continue;
    let last: string | undefined;
    for (const match of line.matchAll(ROUTE)) {
      const path = match[2];
      routes.add(`${match[1]} ${path}`);
      last = path;
    }
    if (line.startsWith('#') && last)
      for (const match of line.matchAll(HEADING_METHOD)) routes.add(`${match[1]} ${lastPathBefore(line, match.index, ROUTE) ?? last}`);
  }
  return routes;
}

function lastPathBefore(line: string, index: number, route: RegExp): string | undefined {
  let found: string | undefined;
  for (const match of line.slice(0, index).matchAll(new RegExp(route.source, 'g'))) found = match[2];
  return found;
}

describe('docs/api.md against /v1/openapi.json', () => {
  let svc: TestService;
  let served: Set<string>;
  let documented: Set<string>;

  beforeAll(async () => {
    svc = await startService();
    const response = await fetch(`${svc.baseUrl}/v1/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
    served = new Set(
      Object.entries(doc.paths).flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => (METHODS as readonly string[]).includes(method.toUpperCase()))
          .map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    documented = documentedRoutes(readFileSync(join(packageRoot, 'docs/api.md'), 'utf8'));
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
  });

  it('documents every path and method of the OpenAPI document', () => {
    expect(served.size).toBeGreaterThan(20);
    expect([...served].filter((route) => !documented.has(route)).sort()).toEqual([]);
  });

  it('names no route the OpenAPI document lacks', () => {
    expect([...documented].filter((route) => !served.has(route)).sort()).toEqual([]);
  });

  it('reads routes from text and headings, bare methods of a heading included', () => {
    const routes = documentedRoutes(
      [
        '### GET /v1/monitors, GET /v1/monitors/{slug}, PATCH, DELETE',
        'Send `POST /v1/events` (see GET /v1/events/{id}?x=1).',
        '```sh',
        'curl -X PUT /v1/ignored',
        '```',
      ].join('\n'),
    );
    expect([...routes].sort()).toEqual([
      'DELETE /v1/monitors/{slug}',
      'GET /v1/events/{id}',
      'GET /v1/monitors',
      'GET /v1/monitors/{slug}',
      'PATCH /v1/monitors/{slug}',
      'POST /v1/events',
    ]);
  });
});
