// The components this build of Faultline ships: receivers, processors, exporters, connectors. Adding one is a line here; the engine
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
import { Registry } from './engine/registry.js';

export function defaultRegistry(): Registry {
  return new Registry([
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
  ]);
}
