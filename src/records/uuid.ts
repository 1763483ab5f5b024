// UUIDv7 for assigned event ids. The uuid package draws its 16 random bytes per call through
// crypto.getRandomValues, which cost more than the rest of the id; here they come from a pooled
// buffer refilled 256 ids at a time (the same CSPRNG).
import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

const pool = Buffer.alloc(16 * 256);
let offset = pool.length;

export function uuidv7(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const random = pool.subarray(offset, offset + 16);
  offset += 16;
  return v7({ random });
}
