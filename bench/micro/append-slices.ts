// Standalone micro-measure of DuckDB's Appender on the span rows (issue #30): the main thread's CPU
// per row of appending a transaction's rows to a `spans` table like the duckdb exporter's (13
// columns, the trace_id index) and flushing them every `slice` rows, as appendRows does
// (exporters/duckdb/kept-appenders.ts). Each flush has a fixed cost, so the slice size is a
// trade between that and how long one slice holds the event loop.
// Run: `npx tsc -p bench/tsconfig.json && node dist/bench/micro/append-slices.js [--slices 200,1024,2048,0] [--rows 4096]`
// (0: one flush per transaction). Compare on a quiet machine, or runs taken close together.
import { DuckDBInstance, timestampValue } from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    slices: { type: 'string', default: '200,1024,2048,0' },
    rows: { type: 'string', default: '4096' },
    transactions: { type: 'string', default: '40' },
  },
});
const ROWS = Number(values.rows);
const TRANSACTIONS = Number(values.transactions);

async function measure(slice: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-append-'));
  const instance = await DuckDBInstance.create(join(dir, 'bench.duckdb'));
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE TABLE spans (dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, trace_id VARCHAR NOT NULL, span_id VARCHAR NOT NULL,
      parent_span_id VARCHAR NOT NULL, name VARCHAR NOT NULL, service_name VARCHAR NOT NULL, start_ns BIGINT NOT NULL, end_ns BIGINT NOT NULL,
      status VARCHAR NOT NULL, kind VARCHAR NOT NULL, received_at TIMESTAMP NOT NULL, doc VARCHAR NOT NULL)`);
    await connection.run('CREATE INDEX spans_trace_id ON spans (trace_id)');
    const appender = await connection.createAppender('spans');
    const receivedAt = timestampValue(BigInt(Date.now()) * 1000n);
    let cpu = 0;
    let rows = 0;
    for (let t = 0; t < TRANSACTIONS; t++) {
      const traces = Array.from({ length: ROWS / 16 }, () => randomBytes(16).toString('hex'));
      const start = BigInt(Date.now()) * 1_000_000n;
      const batch = Array.from({ length: ROWS }, (_, i) => ({
        trace: traces[i % traces.length],
        span: randomBytes(8).toString('hex'),
        parent: randomBytes(8).toString('hex'),
        start: start + BigInt(i),
        ref: `@sb/1764259200000/mbk1x2.${t}/${i}`,
      }));
      await connection.run('BEGIN TRANSACTION');
      const before = process.cpuUsage();
      let inSlice = 0;
      for (const row of batch) {
        appender.appendVarchar('live');
        appender.appendVarchar('default');
        appender.appendVarchar(row.trace);
        appender.appendVarchar(row.span);
        appender.appendVarchar(row.parent);
        appender.appendVarchar('SELECT shop.carts');
        appender.appendVarchar('checkout-api');
        appender.appendBigInt(row.start);
        appender.appendBigInt(row.start + 1000n);
        appender.appendVarchar('unset');
        appender.appendVarchar('client');
        appender.appendTimestamp(receivedAt);
        appender.appendVarchar(row.ref);
        appender.endRow();
        if (slice && ++inSlice === slice) {
          appender.flushSync();
          inSlice = 0;
        }
      }
      appender.flushSync();
      const used = process.cpuUsage(before);
      await connection.run('COMMIT');
      if (t >= 5) {
        cpu += used.user + used.system;
        rows += ROWS;
      }
    }
    appender.closeSync();
    return cpu / rows;
  } finally {
    connection.closeSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const slice of String(values.slices).split(',').map(Number)) {
  const perRow = await measure(slice);
  console.log(`slice ${slice || 'whole'}: ${perRow.toFixed(2)} µs of main-thread CPU per row (append + flush), ${ROWS} rows a transaction`);
}
