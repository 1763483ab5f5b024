// The mapping lives in src/records (the duckdb exporter's read side maps a stored Sentry payload
// again to rebuild its event): the Sentry routes keep importing it from here.
export * from '../../../src/records/sentry-event.js';
