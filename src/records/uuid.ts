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

/** A UUID, dashed or as 32 hex digits, any case (what the API accepts). */
export const UUID_PATTERN = /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$/;

/** A UUID (dashed or 32 hex digits) as stored: lower case with dashes. */
export function normalizeUuid(id: string): string {
  const hex = id.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
