// The protobuf decoder hands out attribute keys it has read before (a fixed table of recent keys,
// compared byte for byte): every key still reads as sent, whatever fills or overwrites the table.
import { describe, expect, it } from 'vitest';
import { decodeTraceRequestProtobuf } from '../../src/otlp/decode/index.js';
import { ExportTraceServiceRequest } from '../../src/otlp/decode/schema.js';

const ids = { traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2) };

function body(keysPerSpan: string[][]): Uint8Array {
  const spans = keysPerSpan.map((keys, i) => ({
    ...ids,
    name: `s${i}`,
    startTimeUnixNano: 1n,
    endTimeUnixNano: 2n,
    attributes: keys.map((key, k) => ({ key, value: { intValue: k } })),
  }));
  return ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).finish();
}

function decodedKeys(bytes: Uint8Array): string[][] {
  return decodeTraceRequestProtobuf(bytes).resourceSpans[0].spans.map((span) => Object.keys(span.attributes as object));
}

describe('attribute keys', () => {
  it('read as sent across thousands of keys of the same lengths, non-ASCII, long and repeated ones', () => {
    const many = Array.from({ length: 3000 }, (_, i) => `k${String(i).padStart(5, '0')}`); // all 6 bytes: slots collide
    const odd = ['é', 'clé.ü', 'x'.repeat(64), 'y'.repeat(65), 'a'.repeat(200), 'k00001', 'k00002', '日本'];
    const spans = [many.slice(0, 1000), many.slice(1000, 2000), many.slice(2000), odd, many.slice(0, 1000), odd];
    for (let pass = 0; pass < 2; pass++) expect(decodedKeys(body(spans))).toEqual(spans);
  });

  it('keeps the values apart when two spans share their keys', () => {
    const bytes = body([
      ['http.route', 'server.port'],
      ['http.route', 'server.port'],
    ]);
    const [a, b] = decodeTraceRequestProtobuf(bytes).resourceSpans[0].spans;
    expect(a.attributes).toEqual({ 'http.route': 0, 'server.port': 1 });
    expect(b.attributes).toEqual(a.attributes);
    expect(b.attributes).not.toBe(a.attributes);
  });
});
