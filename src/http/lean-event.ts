// The view of a Node request a lean route's handler gets in place of h3's event (HttpHost serves
// lean routes before srvx builds a web Request): the headers as the web Headers would read them
// (repeated values joined), the method, the body stream, the URL (srvx's lazily parsed one, as h3
// events have) and a context. Enough for the ingest helpers (body.ts, intake.ts) and the route
// context; its methods are on the prototype, so a request costs these few objects and no closures.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { H3Event } from 'h3';
import { FastURL } from 'srvx';

class NodeHeaders {
  constructor(private readonly raw: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }
}

class LeanRequest {
  readonly method: string;
  readonly headers: NodeHeaders;

  constructor(req: IncomingMessage) {
    this.method = req.method ?? 'GET';
    this.headers = new NodeHeaders(req.headers);
  }
}

class LeanEvent {
  readonly req: LeanRequest;
  readonly runtime: { name: 'node'; node: { req: IncomingMessage; res: ServerResponse } };
  readonly context: Record<string, unknown>;
  private parsedUrl?: URL;

  constructor(
    private readonly nodeReq: IncomingMessage,
    res: ServerResponse,
    params: Record<string, string> | undefined,
  ) {
    this.req = new LeanRequest(nodeReq);
    this.runtime = { name: 'node', node: { req: nodeReq, res } };
    this.context = params ? { params } : {};
  }

  get url(): URL {
    return (this.parsedUrl ??= new FastURL(this.nodeReq.url ?? '/'));
  }
}

export function leanEvent(req: IncomingMessage, res: ServerResponse, params: Record<string, string> | undefined): H3Event {
  // The handlers' helpers take an H3Event and read only what LeanEvent has (see above).
  return new LeanEvent(req, res, params) as unknown as H3Event;
}
