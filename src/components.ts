// The components and extensions this build of Faultline ships: receivers, processors, exporters,
// connectors, and the extensions they share state through. Adding one is a line here; the engine
// finds it by its YAML type name.
import { exceptionsFactory } from '../connectors/exceptions/factory.js';
import { duckdbFactory } from '../exporters/duckdb/factory.js';
import { kafkaExporterFactory } from '../exporters/kafka/factory.js';
import { parquetFactory } from '../exporters/parquet/factory.js';
import { alertingFactory } from '../processors/alerting/factory.js';
import { groupingFactory } from '../processors/grouping/factory.js';
import { issuesFactory } from '../processors/issues/factory.js';
import { scrubbingFactory } from '../processors/scrubbing/factory.js';
import { symbolicationFactory } from '../processors/symbolication/factory.js';
import { validationFactory } from '../processors/validation/factory.js';
import { httpApiFactory } from '../receivers/http-api/factory.js';
import { kafkaReceiverFactory } from '../receivers/kafka/factory.js';
import { monitorsFactory } from '../receivers/monitors/factory.js';
import { otlpFactory } from '../receivers/otlp/factory.js';
import { alertsExtensionFactory } from '../extensions/alerts/index.js';
import { artifactsExtensionFactory } from '../extensions/artifacts/index.js';
import { catalogExtensionFactory } from '../extensions/catalog/index.js';
import { controlPlaneExtensionFactory } from '../extensions/control-plane/index.js';
import { duckdbExtensionFactory } from '../extensions/duckdb/index.js';
import { issuesExtensionFactory } from '../extensions/issues/index.js';
import { quarantineExtensionFactory } from '../extensions/quarantine/index.js';
import { queryExtensionFactory } from '../extensions/query/index.js';
import { sentryIngestExtensionFactory } from '../extensions/sentry-ingest/index.js';
import { Registry } from './engine/registry.js';

export function defaultRegistry(): Registry {
  return new Registry(
    [
      httpApiFactory,
      otlpFactory,
      kafkaReceiverFactory,
      monitorsFactory,
      validationFactory,
      scrubbingFactory,
      symbolicationFactory,
      groupingFactory,
      issuesFactory,
      alertingFactory,
      duckdbFactory,
      parquetFactory,
      kafkaExporterFactory,
      exceptionsFactory,
    ],
    [
      // Also the default `service.extensions`, in this order (dependencies first).
      duckdbExtensionFactory,
      catalogExtensionFactory,
      issuesExtensionFactory,
      quarantineExtensionFactory,
      artifactsExtensionFactory,
      alertsExtensionFactory,
      controlPlaneExtensionFactory,
      queryExtensionFactory,
      sentryIngestExtensionFactory,
    ],
  );
}
