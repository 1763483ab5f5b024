// The scrubber's shortcuts change nothing it scrubs: each finder's cheap first test (a string
// without what a match contains is dismissed) agrees with the finder's full regex on strings made
// to be near misses, and a resource's attributes shared by a batch's spans, walked once when
// clean, leave every span as a walk per span would.
import { describe, expect, it } from 'vitest';
import { authCredentials, awsKeys, creditCards, sensitivePairs, type Span as Found } from '../../processors/scrubbing/detectors.js';
import { ScrubbingProcessor } from '../../processors/scrubbing/processor.js';
import type { Item } from '../../src/engine/item.js';
import { SCRUBBING_DEFAULTS } from '../../src/records/data-scrubbing.js';
import type { Attributes, Span } from '../../src/records/span.js';

/** A seeded generator (mulberry32), so a failure repeats. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function strings(alphabet: string[], count: number, seed: number): string[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    let s = '';
    const length = Math.floor(next() * 40);
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)];
    return s;
  });
}

// The finders as they were before the first tests were added: every regex run in full.
function allMatches(regex: RegExp, text: string): Found[] {
  return [...text.matchAll(regex)].map((m): Found => [m.index, m.index + m[0].length]);
}
const QUERY_PAIR = /(^|[?&;\s])([^=&#;?\s]{1,128})=([^&#;\s]*)/g;
function pairsInFull(text: string): Found[] {
  const spans: Found[] = [];
  for (const match of text.matchAll(QUERY_PAIR)) {
    if (match[3] === '' || match[2].toLowerCase() !== 'token') continue;
    const end = match.index + match[0].length;
    spans.push([end - match[3].length, end]);
  }
  return spans;
}

describe('the finders’ first tests', () => {
  it('sensitivePairs finds what the full regex finds', () => {
    for (const text of strings(['token', '=', '&', ';', '?', ' ', '\t', '#', 'x', '1', '=='], 4000, 1)) {
      expect(
        sensitivePairs(text, (name) => name === 'token'),
        JSON.stringify(text),
      ).toEqual(pairsInFull(text));
    }
  });

  it('awsKeys finds what the full regex finds', () => {
    const full = /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g;
    for (const text of strings(['AKIA', 'AIDA', 'ANVA', 'A', 'K', 'IOSFODNN', '7', ' ', '-', 'x'], 4000, 2)) {
      expect(awsKeys(text), JSON.stringify(text)).toEqual(allMatches(full, text));
    }
  });

  it('authCredentials and creditCards find what they found before (spot checks around the first tests)', () => {
    expect(authCredentials('Authorization: Bearer abcdefgh12')).toEqual([[22, 32]]);
    expect(authCredentials('bearer\tabcdefgh')).toEqual([[7, 15]]);
    expect(authCredentials('bearer abc')).toEqual([]); // too short
    expect(authCredentials('bearer: abcdefghijk')).toEqual([]);
    expect(creditCards('4111 1111 1111 1111')).toEqual([[0, 19]]);
    expect(creditCards('5500-0000-0000-0004 x')).toEqual([[0, 19]]);
    expect(creditCards('4111 1111 1111 111')).toEqual([]); // 15 digits, not Luhn-valid
    expect(creditCards('4111  1111 1111 1111')).toEqual([]); // two spaces break the run
  });
});

function span(id: string, attributes: Attributes, resource: Attributes): Span {
  return {
    trace_id: 't',
    span_id: id,
    parent_span_id: '',
    name: 'GET /',
    service_name: 'api',
    start_time_unix_nano: 1n,
    end_time_unix_nano: 2n,
    status: 'unset',
    kind: 'server',
    attributes,
    resource_attributes: resource,
    events: [],
    links: [],
    project_id: 'p1',
    received_at: '2026-01-01T00:00:00.000Z',
  };
}

const TENANT = { orgId: 'o', projectId: 'p1', dataset: 'live' } as const;
const items = (spans: Span[]): Item[] => spans.map((data) => ({ data, tenant: TENANT, receivedAt: 0, size: 1 }));

describe('a resource shared by a batch’s spans', () => {
  it('is scrubbed and listed on every span when it holds a secret, as when each span has its own copy', async () => {
    const options = { ...SCRUBBING_DEFAULTS, sensitive_fields: [], safe_fields: [], rules: [] };
    const shared = { 'service.name': 'api', 'deployment.token': 'dt', 'url.full': 'https://x/?secret=s' };
    const together = [span('a', { n: 1 }, shared), span('b', { token: 'x' }, shared), span('c', {}, shared)];
    const apart = together.map((s) => span(s.span_id, structuredClone(s.attributes), structuredClone(shared)));
    await new ScrubbingProcessor('traces', options, undefined).process(items(together));
    await new ScrubbingProcessor('traces', options, undefined).process(items(apart));
    for (let i = 0; i < together.length; i++) {
      expect(together[i].attributes).toEqual(apart[i].attributes);
      expect(together[i].attributes['faultline.scrubbed']).toEqual(expect.arrayContaining(["@password resource_attributes.'deployment.token'"]));
    }
    expect(shared).toEqual(apart[0].resource_attributes);
  });

  it('is walked once when clean, and the spans come out as when each has its own copy', async () => {
    const options = { ...SCRUBBING_DEFAULTS, sensitive_fields: [], safe_fields: [], rules: [] };
    const shared = { 'service.name': 'api', 'host.name': 'ip-10-0-1-2' };
    let reads = 0;
    const counted = new Proxy(shared, {
      ownKeys: (target) => (reads++, Reflect.ownKeys(target)),
    });
    const together = [span('a', { q: 'a=1&password=p' }, counted), span('b', {}, counted), span('c', { session: 's' }, counted)];
    const apart = together.map((s) => span(s.span_id, structuredClone(s.attributes), structuredClone(shared)));
    await new ScrubbingProcessor('traces', options, undefined).process(items(together));
    await new ScrubbingProcessor('traces', options, undefined).process(items(apart));
    for (let i = 0; i < together.length; i++) expect(together[i].attributes).toEqual(apart[i].attributes);
    expect(together[0].attributes.q).toBe('a=1&password=[Filtered]');
    expect(reads).toBe(1);
  });
});
