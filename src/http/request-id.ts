// New request ids: `req_` and 32 hex digits of randomness, taken from a pool refilled in one call
// every 256 ids rather than a UUID made and stripped of its dashes per request.
import { randomFillSync } from 'node:crypto';

const ID_BYTES = 16;
const pool = Buffer.allocUnsafe(ID_BYTES * 256);
let next = pool.length;

export function newRequestId(): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const id = pool.toString('hex', next, next + ID_BYTES);
  next += ID_BYTES;
  return `req_${id}`;
}
