// Spans: OTLP/HTTP protobuf requests of 512 spans each (what the SDK's BatchSpanProcessor sends)
// posted to the OTLP port, and the raw decode rate of the same payloads with
// decodeTraceRequestProtobuf in this process (what the receiver can do at best in one thread).
import { decodeTraceRequestProtobuf } from '../src/otlp/decode/index.js';
import { drive, settle, type DriveResult } from './driver.js';
import type { SpanPayloads } from './payloads.js';
import type { ChildService } from './service.js';

export interface SpansLoadOptions {
  payloads: SpanPayloads;
  connections: number;
  warmup: number;
  duration: number;
}

export interface SpansResult extends DriveResult {
  spansPerSecond: number;
}

export async function measureFaultlineSpans(service: ChildService, options: SpansLoadOptions, onMeasureStart?: () => void): Promise<SpansResult> {
  const url = `${service.otlpUrl}/v1/traces`;
  const headers = { authorization: `Bearer ${service.liveKey}`, 'content-type': 'application/x-protobuf' };
  const nextBody = () => options.payloads.nextBody();
  if (options.warmup > 0) await settle(await drive({ url, connections: options.connections, duration: options.warmup, headers, nextBody }));
  onMeasureStart?.();
  const result = await drive({ url, connections: options.connections, duration: options.duration, headers, nextBody });
  return { ...result, spansPerSecond: result.okPerSecond * options.payloads.spansPerRequest };
}

export interface DecodeResult {
  seconds: number;
  requests: number;
  spansPerSecond: number;
  /** ms per 512-span request. */
  msPerRequest: number;
  /** This thread's CPU per decoded span, µs (the yardstick's baseline for spans). */
  cpuMicrosPerSpan: number;
}

/** Decodes distinct patched payloads in a loop for `seconds` (after a short warm-up). */
export function measureDecode(payloads: SpanPayloads, seconds: number): DecodeResult {
  const ring = Array.from({ length: 32 }, () => payloads.nextBody());
  let spans = 0;
  const run = (ms: number) => {
    let requests = 0;
    const start = performance.now();
    let now = start;
    while (now - start < ms) {
      const decoded = decodeTraceRequestProtobuf(ring[requests % ring.length]);
      for (const r of decoded.resourceSpans) spans += r.spans.length;
      requests++;
      now = performance.now();
    }
    return { requests, elapsed: (now - start) / 1000 };
  };
  run(Math.min(1000, seconds * 200)); // warm-up: let V8 optimize the decoder
  spans = 0;
  const cpu0 = process.cpuUsage();
  const { requests, elapsed } = run(seconds * 1000);
  const cpu = process.cpuUsage(cpu0);
  return {
    seconds: elapsed,
    requests,
    spansPerSecond: spans / elapsed,
    msPerRequest: (elapsed * 1000) / requests,
    cpuMicrosPerSpan: (cpu.user + cpu.system) / spans,
  };
}
