// One uptime check: a request to the monitor's URL, following at most a few redirects, each target
// held to the same destination guard as alert webhooks (no private, loopback or metadata address
// unless allowed), answered by a result with a failure kind instead of a raw socket error.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DestinationRefusedError, type DestinationGuard } from '../../src/net/destinations.js';
import type { UptimeCheck, UptimeSettings } from '../../src/storage/monitors.js';

export interface ProbeOptions {
  guard: DestinationGuard;
  maxRedirects: number;
  now?: () => number;
}

/** The body of an answer is not kept: at most this much is read before the connection is closed. */
const MAX_BODY_READ = 64 * 1024;

export async function probe(settings: UptimeSettings, options: ProbeOptions): Promise<UptimeCheck> {
  const now = options.now ?? Date.now;
  const started = now();
  let url = new URL(settings.url);
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await send(url, settings, options.guard);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location && redirects < options.maxRedirects) {
        url = new URL(location, url);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return result(started, now(), false, status, 'unreachable');
        continue;
      }
      const ok = settings.expected_status === '2xx' ? status >= 200 && status < 300 : settings.expected_status.includes(status);
      return result(started, now(), ok, status, ok ? null : `http_${status}`);
    }
  } catch (error) {
    return result(started, now(), false, null, failureKind(error));
  }
}

function result(started: number, ended: number, ok: boolean, status: number | null, error: string | null): UptimeCheck {
  return { at: started, ok, status_code: status, latency_ms: ended - started, error };
}

function send(url: URL, settings: UptimeSettings, guard: DestinationGuard): Promise<IncomingMessage> {
  const connect = guard.connectOptions(url); // throws for a refused literal address
  return new Promise((resolve, reject) => {
    const body = settings.method === 'POST' && settings.body !== null ? settings.body : undefined;
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: settings.method,
        headers: {
          'user-agent': 'Faultline-Uptime/1',
          ...settings.headers,
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        },
        ...connect,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_BODY_READ) response.destroy();
        });
        response.on('end', () => resolve(response));
        response.on('close', () => resolve(response));
        response.on('error', () => resolve(response));
      },
    );
    const timer = setTimeout(() => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), settings.timeout_ms);
    request.on('close', () => clearTimeout(timer));
    request.on('error', reject);
    request.end(body);
  });
}

/** A failure's kind; never the raw socket message, which would make checks a port scanner. */
export function failureKind(error: unknown): string {
  if (error instanceof DestinationRefusedError) return 'blocked';
  const code = String((error as NodeJS.ErrnoException | undefined)?.code ?? '');
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timeout';
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'dns';
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/.test(code)) return 'tls';
  return 'unreachable';
}
