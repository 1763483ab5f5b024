// A seeded PRNG and the small helpers the corpus categories draw with. Nothing here reads the
// clock, the environment or Math.random: the same seed gives the same corpus on every machine.

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE64URL = BASE62 + '-_';
/** esbuild's hash alphabet (RFC 4648 base32): `chunk-UBTAZZLR.js`. */
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const HEX = '0123456789abcdef';

/**
 * Mixed into every seed: '' for the committed corpus; another salt draws a fresh sample of the same
 * bugs (other builds, depths, browsers, ids), a held-out set for `generate.js --salt S --out F`.
 */
let salt = '';

export function setSalt(value: string): void {
  salt = value;
}

/** FNV-1a over the UTF-16 code units: a stable 32-bit seed from a text. */
export function seedOf(text: string): number {
  if (salt !== '') text = `${salt}\0${text}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** SplitMix32: small, fast and good enough for test data. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A generator seeded by a text, so that each bug (or build) draws its own independent sequence. */
  static from(text: string): Random {
    return new Random(seedOf(text));
  }

  /** In [0, 1). */
  next(): number {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    return ((z ^ (z >>> 15)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new Error('pick from an empty list');
    return list[Math.floor(this.next() * list.length)];
  }

  /** Picks by weight: `[[value, weight], …]`. */
  weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let x = this.next() * total;
    for (const [value, weight] of entries) {
      x -= weight;
      if (x < 0) return value;
    }
    return entries[entries.length - 1][0];
  }

  shuffle<T>(list: readonly T[]): T[] {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  chars(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  hex(length: number): string {
    return this.chars(HEX, length);
  }

  base62(length: number): string {
    return this.chars(BASE62, length);
  }

  /** Vite/Rollup's hash alphabet: may start with `-` and contain `_`. */
  base64url(length: number): string {
    return this.chars(BASE64URL, length);
  }

  base32(length: number): string {
    return this.chars(BASE32, length);
  }

  digits(length: number): string {
    return String(this.int(1, 9)) + this.chars('0123456789', length - 1);
  }

  uuid(): string {
    const h = this.hex(32);
    const variant = '89ab'[this.int(0, 3)];
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/** A number that depends only on `key`: the same site, build or engine gives the same value in every event. */
export function stableInt(key: string, lo: number, hi: number): number {
  return Random.from(key).int(lo, hi);
}
