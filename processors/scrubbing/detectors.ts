// The built-in patterns: where each finds its kind of secret inside a string, as [start, end) spans.
// Each runs in time linear in the string: the scanners move forward only, and the regular
// expressions have no nested or overlapping quantifiers (each quantified part is followed by
// something it cannot match), so no input makes them backtrack more than a constant per position.
import type { PatternKind } from '../../src/records/data-scrubbing.js';

export type Span = [start: number, end: number];
export type Finder = (text: string) => Span[];

const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlnum = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * What each finder's match contains, tested first: a string without it has nothing for the finder,
 * and most strings are dismissed by one pass of the regex engine instead of the finder's own walk.
 */
const CARD_DIGITS = /\d(?:[ -]?\d){12}/;

/** Card numbers: 13-19 digits (single spaces or dashes between), not inside a longer word, starting 2-6, Luhn-valid. */
export function creditCards(text: string): Span[] {
  const spans: Span[] = [];
  if (!CARD_DIGITS.test(text)) return spans;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (!isDigit(c) || (i > 0 && isAlnum(text.charCodeAt(i - 1)))) {
      i++;
      continue;
    }
    let j = i;
    let end = i;
    let digits = 0;
    let sum = 0;
    const values: number[] = [];
    while (j < n) {
      const d = text.charCodeAt(j);
      if (isDigit(d)) {
        values.push(d - 48);
        digits++;
        j++;
        end = j;
      } else if ((d === 32 || d === 45) && j + 1 < n && isDigit(text.charCodeAt(j + 1)) && isDigit(text.charCodeAt(j - 1))) j++;
      else break;
    }
    if (digits >= 13 && digits <= 19 && c >= 50 && c <= 54 && (end === n || !isAlnum(text.charCodeAt(end)))) {
      for (let k = 0; k < values.length; k++) {
        let v = values[values.length - 1 - k];
        if (k % 2 === 1) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
        sum += v;
      }
      if (sum % 10 === 0) spans.push([i, end]);
    }
    i = Math.max(j, i + 1);
  }
  return spans;
}

const BEARER = /\b(bearer|basic)[ \t]+([A-Za-z0-9._~+/-]+=*)/gi;
const BEARER_START = /\b(?:bearer|basic)[ \t]+[A-Za-z0-9._~+/-]/i;

/** The credential after `Bearer ` (8 characters or more) or `Basic ` (base64 of `user:password`); the scheme word stays. */
export function authCredentials(text: string): Span[] {
  const spans: Span[] = [];
  if (!BEARER_START.test(text)) return spans;
  for (const match of text.matchAll(BEARER)) {
    const credential = match[2];
    const start = (match.index ?? 0) + match[0].length - credential.length;
    if (match[1].toLowerCase() === 'basic' ? !Buffer.from(credential, 'base64').toString('latin1').includes(':') : credential.length < 8) continue;
    spans.push([start, start + credential.length]);
  }
  return spans;
}

/** PEM private keys, from `-----BEGIN … PRIVATE KEY-----` to the matching END line (or the end of the string). */
export function privateKeys(text: string): Span[] {
  const spans: Span[] = [];
  let from = 0;
  for (;;) {
    const begin = text.indexOf('-----BEGIN ', from);
    if (begin < 0) return spans;
    const headerEnd = text.indexOf('-----', begin + 11);
    if (headerEnd < 0) return spans;
    if (headerEnd - begin > 80 || !text.slice(begin, headerEnd).includes('PRIVATE KEY')) {
      from = headerEnd;
      continue;
    }
    const endLine = text.indexOf('-----END ', headerEnd + 5);
    const close = endLine < 0 ? -1 : text.indexOf('-----', endLine + 9);
    const end = close < 0 ? text.length : close + 5;
    spans.push([begin, end]);
    from = end;
  }
}

const AWS_KEY_PREFIXES = 'AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA';
const AWS_KEY_ID = new RegExp(`\\b(?:${AWS_KEY_PREFIXES})[A-Z0-9]{16}\\b`, 'g');
const ANY_AWS_KEY_ID = new RegExp(AWS_KEY_ID.source);

export function awsKeys(text: string): Span[] {
  return ANY_AWS_KEY_ID.test(text) ? regexSpans(AWS_KEY_ID, text) : [];
}

/**
 * What a default finder's match needs somewhere (13 digits with single spaces or dashes between, a
 * scheme word, a PEM header, an AWS key id prefix, or `=`), made of the finders' own pieces so the
 * two cannot drift: the scrubber tests a string with it first, and a string without any of these
 * has nothing for them. Each `[ -]?\d` step must take a digit, so the digit run matches one way only.
 */
export const DEFAULT_FINDERS_NEED = new RegExp(`${CARD_DIGITS.source}|bearer|basic|-----BEGIN|${AWS_KEY_PREFIXES}|=`, 'i');

const LOCAL = /[A-Za-z0-9._%+-]/;
const DOMAIN = /[A-Za-z0-9.-]/;

/** name@domain.tld: expands around each `@` (neither side crosses another `@`, so each character is looked at twice at most). */
export function emails(text: string): Span[] {
  const spans: Span[] = [];
  let at = text.indexOf('@');
  let floor = 0;
  while (at >= 0) {
    let left = at;
    while (left > floor && LOCAL.test(text[left - 1])) left--;
    let right = at + 1;
    while (right < text.length && DOMAIN.test(text[right])) right++;
    while (right > at + 1 && (text[right - 1] === '.' || text[right - 1] === '-')) right--;
    const domain = text.slice(at + 1, right);
    const dot = domain.lastIndexOf('.');
    if (left < at && dot > 0 && /^[A-Za-z]{2,}$/.test(domain.slice(dot + 1))) {
      spans.push([left, right]);
      floor = right;
    }
    at = text.indexOf('@', Math.max(at + 1, right));
  }
  return spans;
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\d.])(?:${OCTET}\\.){3}${OCTET}(?!\\.?\\d)`, 'g');
const IPV6 = /(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{1,4}(?![\w:])/g;

/** IPv4 addresses, and IPv6 ones written in full (8 groups) or with `::`. */
export function ipAddresses(text: string): Span[] {
  const spans = regexSpans(IPV4, text);
  if (text.includes(':')) {
    for (const span of regexSpans(IPV6, text)) {
      const address = text.slice(span[0], span[1]);
      if (address.includes('::') || address.split(':').length === 8) spans.push(span);
    }
    spans.sort((a, b) => a[0] - b[0]);
  }
  return spans;
}

const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g;
const UUID = /\b[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b/g;

export const FINDERS: Record<PatternKind, Finder> = {
  creditcard: creditCards,
  bearer: authCredentials,
  privatekey: privateKeys,
  awskey: awsKeys,
  email: emails,
  ip: ipAddresses,
  iban: (text) => regexSpans(IBAN, text),
  uuid: (text) => regexSpans(UUID, text),
};

function regexSpans(regex: RegExp, text: string): Span[] {
  const spans: Span[] = [];
  for (const match of text.matchAll(regex)) spans.push([match.index ?? 0, (match.index ?? 0) + match[0].length]);
  return spans;
}

const QUERY_PAIR = /(^|[?&;\s])([^=&#;?\s]{1,128})=([^&#;\s]*)/g;
/** A name's last character, `=`, a value's first: what a pair with a value has somewhere. */
const PAIR_WITH_VALUE = /[^=&#;?\s]=[^&#;\s]/;

/** `name=value` pairs (query strings, form bodies, `token=…` in log lines) whose name `sensitive` says is secret: the value's span. */
export function sensitivePairs(text: string, sensitive: (lowerName: string) => boolean): Span[] {
  const spans: Span[] = [];
  if (!PAIR_WITH_VALUE.test(text)) return spans;
  for (const match of text.matchAll(QUERY_PAIR)) {
    if (match[3] === '' || !sensitive(decodeName(match[2]))) continue;
    const end = (match.index ?? 0) + match[0].length;
    spans.push([end - match[3].length, end]);
  }
  return spans;
}

function decodeName(name: string): string {
  if (!name.includes('%') && !name.includes('+')) return name.toLowerCase();
  try {
    return decodeURIComponent(name.replaceAll('+', ' ')).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}
