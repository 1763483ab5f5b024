// JSON with exact integers: a span time in nanoseconds (~1.7e18) does not fit a double. Bodies
// without a long integer literal take the fast built-in parser; the others keep integers beyond
// 2^53 as bigints.
import { isSafeNumber, parse } from 'lossless-json';

const LONG_INTEGER = /[[:,]\s*-?\d{16,}\s*[,}\]]/;
const INTEGER = /^-?\d+$/;

const exactNumber = (value: string): number | bigint => (INTEGER.test(value) && !isSafeNumber(value) ? BigInt(value) : Number(value));

export function parseJsonExact(text: string): unknown {
  return LONG_INTEGER.test(text) ? parse(text, null, exactNumber) : JSON.parse(text);
}
