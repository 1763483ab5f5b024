// One attempt of one delivery: a webhook POST, a Slack message, or a log line. What it reports
// is one of a few words — refused, timeout, http_<status>, unreachable — never a socket's own
// error, which would tell whoever reads the rule which ports answer on a network (the detail goes
// to the service log only).
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Logger } from 'pino';
import { DestinationRefusedError, type DestinationGuard } from '../../src/net/destinations.js';
import type { Mailer } from '../../src/net/mailer.js';
import { slackMessage, type AlertPayload } from '../../src/records/alert-payload.js';
import type { AlertAction } from '../../src/records/alert-rule.js';
import { VERSION } from '../../src/version.js';
import { sendEmail } from './email.js';
import { signatureHeaders } from './signature.js';

export type AttemptResult =
  | { ok: true }
  | { ok: false; error: 'refused' | 'timeout' | 'unreachable' | `http_${number}` | `smtp_${number}`; retry: boolean; detail?: string }
  /** The loop stopped while the request was in flight: nothing is recorded, the delivery stays due. */
  | { ok: false; aborted: true };

export interface SendOptions {
  /** The whole request: resolving, connecting, sending, the answer's status. */
  timeoutMs: number;
  /** Resolving and connecting, within timeoutMs. */
  connectTimeoutMs: number;
  guard: DestinationGuard;
  logger: Logger;
  /** The SMTP client of email actions (undefined: service.smtp is not set). */
  mailer?: Mailer;
  signal?: AbortSignal;
}

class TimeoutError extends Error {}

// No keep-alive: each request resolves and checks its destination again, and no socket outlives it.
const agents = { http: new HttpAgent({ keepAlive: false }), https: new HttpsAgent({ keepAlive: false }) };

export async function attempt(action: AlertAction, payloadText: string, idempotencyKey: string, options: SendOptions): Promise<AttemptResult> {
  if (action.type === 'log') {
    options.logger.info({ alert: JSON.parse(payloadText) as AlertPayload, idempotency_key: idempotencyKey }, 'alert notification');
    return { ok: true };
  }
  if (action.type === 'email') return sendEmail(action.to, payloadText, idempotencyKey, options.mailer);
  const body = action.type === 'slack' ? JSON.stringify(slackMessage(JSON.parse(payloadText) as AlertPayload)) : payloadText;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `Faultline/${VERSION}`,
    'idempotency-key': idempotencyKey,
    ...(action.type === 'webhook' && action.secret ? signatureHeaders(action.secret, body) : {}),
  };
  try {
    const status = await post(new URL(action.url), body, headers, options);
    if (status >= 200 && status < 300) return { ok: true };
    // The receiver understood and refused: only a timeout, a rate limit or its own failure is worth another try.
    return { ok: false, error: `http_${status}`, retry: status === 408 || status === 429 || status >= 500 };
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, aborted: true };
    const detail = (error as Error).message || String(error);
    if (error instanceof DestinationRefusedError) return { ok: false, error: 'refused', retry: false, detail };
    if (error instanceof TimeoutError) return { ok: false, error: 'timeout', retry: true, detail };
    return { ok: false, error: 'unreachable', retry: true, detail };
  }
}

function post(url: URL, body: string, headers: Record<string, string>, options: SendOptions): Promise<number> {
  const connect = options.guard.connectOptions(url); // throws for a refused literal address
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:';
    const request: ClientRequest = (https ? httpsRequest : httpRequest)(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: https ? agents.https : agents.http,
        signal: options.signal,
        ...connect,
      },
      (response) => {
        clearTimeout(connecting);
        resolve(response.statusCode ?? 0);
        response.resume(); // the answer's body is not needed; the deadline still ends a body that never does
      },
    );
    const fail = (message: string) => () => request.destroy(new TimeoutError(message));
    const deadline = setTimeout(fail(`no answer within ${options.timeoutMs} ms`), options.timeoutMs);
    const connecting = setTimeout(fail(`not connected within ${options.connectTimeoutMs} ms`), options.connectTimeoutMs);
    request.on('socket', (socket) => socket.once(https ? 'secureConnect' : 'connect', () => clearTimeout(connecting)));
    request.on('close', () => {
      clearTimeout(deadline);
      clearTimeout(connecting);
    });
    request.on('error', reject);
    request.end(body);
  });
}
