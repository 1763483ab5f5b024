// API key secrets: `fl_live_…` / `fl_test_…` plus 32 random base62 characters. Only a SHA-256
// hash is stored: the secrets are high-entropy, so a fast hash is as safe as a slow one here.
import { createHash, randomBytes } from 'node:crypto';
import type { Dataset } from '../engine/item.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIXES: Record<Dataset, string> = { live: 'fl_live_', test: 'fl_test_' };

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62]; // 248 = 4 * 62: no modulo bias
    }
  }
  return out;
}

export function newSecret(dataset: Dataset): string {
  return KEY_PREFIXES[dataset] + randomBase62(32);
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function datasetOf(secret: string): Dataset | undefined {
  if (secret.startsWith(KEY_PREFIXES.live)) return 'live';
  if (secret.startsWith(KEY_PREFIXES.test)) return 'test';
  return undefined;
}

/** What a listing shows of a secret: its prefix and first characters. */
export function displayPrefix(secret: string): string {
  return `${secret.slice(0, 12)}…`;
}
