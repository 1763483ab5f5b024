// The routes HttpHost serves straight from node:http (RouteDefinition.lean): an exact path, or a
// path with `:name` segments matched the way the router matches them (a segment each, not empty;
// with or without the trailing slash).
import type { H3Event } from 'h3';

export type LeanHandler = (event: H3Event) => Promise<Response>;

export interface LeanMatch {
  readonly handle: LeanHandler;
  /** The route's path as registered: the latency metric's label, as h3's matched route is. */
  readonly route: string;
  readonly params?: Record<string, string>;
}

interface Pattern {
  method: string;
  route: string;
  /** The path's segments without the leading and trailing slash; `:name` for a parameter. */
  segments: string[];
  handle: LeanHandler;
}

function segmentsOf(path: string): string[] {
  const trimmed = path.endsWith('/') && path.length > 1 ? path.slice(1, -1) : path.slice(1);
  return trimmed.split('/');
}

export class LeanRoutes {
  /** By method, then path: the match itself, made once (a request allocates nothing to find it). */
  private readonly exact = new Map<string, Map<string, LeanMatch>>();
  private readonly patterns: Pattern[] = [];

  add(method: string, path: string, handle: LeanHandler): void {
    if (path.includes('*')) throw new Error(`a lean route cannot have a wildcard: ${path}`);
    if (!path.includes(':')) {
      const paths = this.exact.get(method) ?? new Map<string, LeanMatch>();
      this.exact.set(method, paths);
      paths.set(path, { handle, route: path });
    } else this.patterns.push({ method, route: path, segments: segmentsOf(path), handle });
  }

  get size(): number {
    let exact = 0;
    for (const paths of this.exact.values()) exact += paths.size;
    return exact + this.patterns.length;
  }

  /** The lean route for a request's method and path (before any `?`), if one is. */
  match(method: string, path: string): LeanMatch | undefined {
    const exact = this.exact.get(method)?.get(path);
    if (exact) return exact;
    if (this.patterns.length === 0) return undefined;
    const segments = segmentsOf(path);
    for (const pattern of this.patterns) {
      if (pattern.method !== method || pattern.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < segments.length && matched; i++) {
        const want = pattern.segments[i];
        if (want.startsWith(':')) {
          if (segments[i] === '') matched = false;
          else params[want.slice(1)] = segments[i];
        } else matched = want === segments[i];
      }
      if (matched) return { handle: pattern.handle, route: pattern.route, params };
    }
    return undefined;
  }
}
