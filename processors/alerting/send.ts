// One attempt of one delivery: a webhook POST, a Slack message, or a log line.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from 'pino';
import { slackMessage, type AlertPayload } from '../../src/records/alert-payload.js';
import type { AlertAction } from '../../src/records/alert-rule.js';
import { VERSION } from '../../src/version.js';
import { checkedLookup, checkLiteralHost, DestinationRefusedError } from './destinations.js';
import { signatureHeaders } from './signature.js';

export type AttemptResult = { ok: true } | { ok: false; error: string; retry: boolean };

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  logger: Logger;
}

export async function attempt(action: AlertAction, payloadText: string, idempotencyKey: string, options: SendOptions): Promise<AttemptResult> {
  if (action.type === 'log') {
    options.logger.info({ alert: JSON.parse(payloadText) as AlertPayload, idempotency_key: idempotencyKey }, 'alert notification');
    return { ok: true };
  }
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
    return { ok: false, error: `HTTP ${status}`, retry: status === 408 || status === 429 || status >= 500 };
  } catch (error) {
    if (error instanceof DestinationRefusedError) return { ok: false, error: error.message, retry: false };
    return { ok: false, error: (error as Error).message || String(error), retry: true };
  }
}

function post(url: URL, body: string, headers: Record<string, string>, options: SendOptions): Promise<number> {
  if (!options.allowPrivate) checkLiteralHost(url);
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: options.timeoutMs,
        ...(options.allowPrivate ? {} : { lookup: checkedLookup }),
      },
      (response) => {
        response.resume(); // the answer's body is not needed
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}
