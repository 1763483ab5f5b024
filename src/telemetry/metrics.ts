// The service's Prometheus metrics, one registry per service instance (tests run several).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();

  readonly receiverAccepted = new Counter({
    name: 'faultline_receiver_accepted_items_total',
    help: 'Items a receiver took in and the pipelines acknowledged',
    labelNames: ['receiver', 'signal'] as const,
    registers: [this.registry],
  });

  readonly receiverRefused = new Counter({
    name: 'faultline_receiver_refused_items_total',
    help: 'Items a receiver refused, by reason (invalid, overloaded, unauthorized, too_large, timeout, client_abort, failed)',
    labelNames: ['receiver', 'signal', 'reason'] as const,
    registers: [this.registry],
  });

  readonly kafkaReceiverWaits = new Counter({
    name: 'faultline_kafka_receiver_waits_total',
    help: 'Times the kafka receiver held a partition instead of handing its batch in, by reason (overloaded: the budget was full; failed: an exporter failed)',
    labelNames: ['receiver', 'signal', 'reason'] as const,
    registers: [this.registry],
  });

  readonly processorDropped = new Counter({
    name: 'faultline_processor_dropped_items_total',
    help: 'Items a processor dropped, by reason',
    labelNames: ['processor', 'pipeline', 'signal', 'reason'] as const,
    registers: [this.registry],
  });

  readonly processorRejected = new Counter({
    name: 'faultline_processor_rejected_items_total',
    help: 'Items a processor rejected back to the sender',
    labelNames: ['processor', 'pipeline', 'signal'] as const,
    registers: [this.registry],
  });

  readonly exporterSent = new Counter({
    name: 'faultline_exporter_sent_items_total',
    help: 'Items an exporter made durable',
    labelNames: ['exporter', 'signal'] as const,
    registers: [this.registry],
  });

  readonly exporterFailed = new Counter({
    name: 'faultline_exporter_failed_items_total',
    help: 'Items an exporter failed to make durable',
    labelNames: ['exporter', 'signal'] as const,
    registers: [this.registry],
  });

  readonly quarantined = new Counter({
    name: 'faultline_quarantined_items_total',
    help: 'Acknowledged items a later stage could not store, kept in the quarantine (faultline quarantine list)',
    labelNames: ['component', 'signal'] as const,
    registers: [this.registry],
  });

  readonly pipelineInFlightItems = new Gauge({
    name: 'faultline_pipeline_in_flight_items',
    help: 'Items inside a pipeline (queue depth)',
    labelNames: ['pipeline'] as const,
    registers: [this.registry],
  });

  readonly pipelineInFlightBytes = new Gauge({
    name: 'faultline_pipeline_in_flight_bytes',
    help: 'Bytes of items inside a pipeline',
    labelNames: ['pipeline'] as const,
    registers: [this.registry],
  });

  readonly httpRequestDuration = new Histogram({
    name: 'faultline_http_request_duration_seconds',
    help: 'HTTP request latency by route and status (499: the client closed the connection before the answer)',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly httpUnparsed = new Counter({
    name: 'faultline_http_unparsed_requests_total',
    help: 'Requests the HTTP parser refused before routing (oversized URL or headers, bad framing, unknown method), by status and error code',
    labelNames: ['status', 'code'] as const,
    registers: [this.registry],
  });

  readonly sentryItems = new Counter({
    name: 'faultline_sentry_envelope_items_total',
    help: 'Items of Sentry envelopes (and store bodies), by item type and outcome (accepted, skipped, dropped, ignored)',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly sentrySessions = new Counter({
    name: 'faultline_sentry_sessions_total',
    help: 'Release-health sessions from Sentry SDKs, by what happened (started, crashed, errored, abnormal)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly sentryClientDiscarded = new Counter({
    name: 'faultline_sentry_client_discarded_events_total',
    help: 'What Sentry SDKs report (client_report items) they discarded before sending, by reason and category',
    labelNames: ['reason', 'category'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'faultline_' });
  }
}
