// Reading `otlp_proto` messages (an OTLP TracesData protobuf, as the Collector's kafka exporter
// and ours with traces_encoding: otlp_proto write them): spans are checked by the same validation
// as OTLP/HTTP spans. The tenant is in the faultline-* headers when our exporter wrote the message;
// otherwise the receiver's `key` fixes it, the project routed as on OTLP/HTTP (the resource
// attribute faultline.project, else the key's project or the organization's default).
import type { KafkaMessage } from 'kafkajs';
import type { Host } from '../../src/engine/host.js';
import { reject, type Item, type Tenant } from '../../src/engine/item.js';
import { resolveProject, tenantOf } from '../../src/auth/scope.js';
import { RecordDecodeError } from '../../src/kafka/record.js';
import { SpanValidationProcessor } from '../../src/records/span-validation/processor.js';
import { SPAN_LIMIT_DEFAULTS } from '../../src/records/span-validation/validate-span.js';
import { decodeTraceRequestProtobuf } from '../../src/otlp/decode/protobuf.js';
import { otlpIdErrors } from '../../src/otlp/decode/to-span-inputs.js';
import { HEADER_DATASET, HEADER_ORG, HEADER_PROJECT } from '../../src/kafka/tenant-headers.js';
import { authenticatorOf, catalogOf } from '../../extensions/catalog/index.js';

const SPAN_SIZE = 512;

export class OtlpProtoDecoder {
  private readonly validation: SpanValidationProcessor;

  constructor(
    private readonly host: Host,
    private readonly key: string | undefined,
  ) {
    this.validation = new SpanValidationProcessor(SPAN_LIMIT_DEFAULTS, host.settings.retention.traces_days);
  }

  /** The message's spans as validated items; invalid spans come back rejected (the pipeline skips them). */
  async decode(message: KafkaMessage): Promise<Item[]> {
    if (!message.value?.length) throw new RecordDecodeError('empty message');
    const request = decodeTraceRequestProtobuf(message.value);
    const receivedAt = Number(message.timestamp) || Date.now();
    const fromHeaders = tenantFromHeaders(message);
    const items: Item[] = [];
    for (const resource of request.resourceSpans) {
      const tenant = fromHeaders ?? (await this.tenantOfResource(resource.resource['faultline.project']));
      for (const span of resource.spans) {
        const item: Item = { data: span, tenant, receivedAt, size: SPAN_SIZE };
        const invalid = otlpIdErrors(span);
        if (invalid.length) reject(item, 'the span is invalid', invalid);
        items.push(item);
      }
    }
    this.validation.process(items.filter((item) => item.outcome === undefined));
    return items;
  }

  private async tenantOfResource(project: unknown): Promise<Tenant> {
    if (!this.key) throw new RecordDecodeError('an otlp_proto message without faultline tenant headers, and no `key` configured to attribute it');
    const principal = await authenticatorOf(this.host).authenticate(`Bearer ${this.key}`);
    if (!principal) throw new RecordDecodeError('the configured key is not a valid API key');
    return tenantOf(principal, await resolveProject(catalogOf(this.host), principal, typeof project === 'string' ? project : undefined));
  }
}

function tenantFromHeaders(message: KafkaMessage): Tenant | undefined {
  const header = (name: string) => message.headers?.[name]?.toString();
  const orgId = header(HEADER_ORG);
  const projectId = header(HEADER_PROJECT);
  const dataset = header(HEADER_DATASET);
  if (!orgId || !projectId || (dataset !== 'live' && dataset !== 'test')) return undefined;
  return { orgId, projectId, dataset };
}
