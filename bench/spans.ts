// Spans: OTLP/HTTP protobuf requests of 512 spans each (what the SDK's BatchSpanProcessor sends)
// posted to the service's OTLP port, and the same bodies to the bare baseline child, which decodes
// them with protobufjs (baseline-server.ts), at 25 %, 70 % and 100 % of each one's capacity.
import { measureLevels, type LevelOptions, type LevelResult } from './levels.js';
import type { SpanPayloads } from './payloads.js';
import type { BaselineServer } from './baseline-server.js';
import type { ChildService } from './service.js';

export type SpansLevelOptions = Omit<LevelOptions, 'nextBody' | 'itemsPerRequest' | 'label'> & { payloads: SpanPayloads };

const PROTOBUF = 'application/x-protobuf';

/** The service's OTLP receiver (POST /v1/traces on its OTLP port), CPU per span. */
export function measureFaultlineSpans(service: ChildService, options: SpansLevelOptions): Promise<LevelResult[]> {
  return measureLevels(
    { pid: service.pid, baseUrl: service.otlpUrl, path: '/v1/traces', headers: { authorization: `Bearer ${service.liveKey}`, 'content-type': PROTOBUF } },
    { ...options, label: 'spans', nextBody: () => options.payloads.nextBody(), itemsPerRequest: options.payloads.spansPerRequest },
  );
}

/** The bare baseline: node:http + protobufjs' decode of the same bodies. */
export function measureBareSpans(bare: BaselineServer, options: SpansLevelOptions): Promise<LevelResult[]> {
  return measureLevels(
    { pid: bare.pid, baseUrl: bare.url, path: '/v1/traces', headers: { 'content-type': PROTOBUF } },
    { ...options, label: 'bare spans', nextBody: () => options.payloads.nextBody(), itemsPerRequest: options.payloads.spansPerRequest },
  );
}
