// The webhook signature: X-Faultline-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">
// with X-Faultline-Timestamp: <unix seconds>. Signing the timestamp with the body lets a receiver
// refuse replays of an old request (see the verification snippet in README.md).
import { createHmac, timingSafeEqual } from 'node:crypto';

export function sign(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export function signatureHeaders(secret: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return { 'x-faultline-timestamp': String(timestamp), 'x-faultline-signature': sign(secret, timestamp, body) };
}

/** What a receiver does: the signature matches and the timestamp is recent. */
export function verify(secret: string, headers: { timestamp: string; signature: string }, body: string, toleranceSeconds = 300, now = Date.now()): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, timestamp, body));
  const given = Buffer.from(headers.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
