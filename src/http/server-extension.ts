// The service's HTTP server as a built-in extension (id `http_server`): every service has one, so it
// is not listed in YAML. Receivers mount their routes on it, and those that bind a listener of their
// own record its port here (for the start-up log and tests).
import { requireExtension, type Extension, type ExtensionLookup } from '../engine/extension.js';
import type { HttpHost } from './host.js';

export const HTTP_SERVER_EXTENSION = 'http_server';

export class HttpServerExtension implements Extension {
  /** Ports that receivers with listeners of their own bound, by receiver id. */
  readonly listeners = new Map<string, number>();

  constructor(readonly server: HttpHost) {}
}

/** The service's HTTP server, on which receivers mount routes. */
export function httpServerOf(host: ExtensionLookup): HttpHost {
  return requireExtension(host, HTTP_SERVER_EXTENSION, HttpServerExtension).server;
}

/** Where a receiver records the port its own listener bound. */
export function listenersOf(host: ExtensionLookup): Map<string, number> {
  return requireExtension(host, HTTP_SERVER_EXTENSION, HttpServerExtension).listeners;
}
