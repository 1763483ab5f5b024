// Sentry's times live in src/records beside the event mapping that reads them (sentry-event.ts).
export * from '../../../src/records/sentry-time.js';
