// The compiled accept-path lives in src/records (the duckdb exporter's read side runs it too, to
// rebuild an event from the body it stored): validation keeps importing it from here.
export { compileAccept, UNSURE } from '../../src/records/compiled-accept.js';
