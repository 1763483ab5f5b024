// What the storage architecture promises: two named instances of one exporter side by side, and a
// read-only node that serves the API over a lake with no receiver and no pipeline.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParquetExporter } from '../../exporters/parquet/exporter.js';
import { fullEvent, startService, tempDir } from '../support/service.js';
import { databaseOf } from '../../extensions/duckdb/index.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.parquet'));
}

const writerYaml = (lake: string, archive: string) => `
receivers:
  http_api: {}
processors:
  validation: {}
  scrubbing: {}
  grouping: {}
  issues: {}
exporters:
  parquet:
    path: ${lake}
  parquet/archive:
    path: ${archive}
    flush:
      max_rows: 100000
service:
  storage:
    events: [parquet/archive]
    traces: [parquet]
  pipelines:
    events:
      receivers: [http_api]
      processors: [validation, scrubbing, grouping, issues]
      exporters: [parquet, parquet/archive]
    traces:
      receivers: [http_api]
      processors: [validation, scrubbing]
      exporters: [parquet]
`;

describe('storage roles', () => {
  const root = tempDir('faultline-roles-');
  dirs.push(root);
  const lake = join(root, 'lake');
  const archive = join(root, 'archive');
  const events = Array.from({ length: 5 }, () => randomUUID());
  const trace = randomBytes(16).toString('hex');

  it('runs two parquet instances with lakes and tables of their own, and reads from the one named', async () => {
    const writer = await startService({ yaml: writerYaml(lake, archive), dataDir: join(root, 'writer'), keepData: true });
    try {
      for (const id of events) expect((await writer.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id })) })).status).toBe(202);
      const span = { trace_id: trace, span_id: randomBytes(8).toString('hex'), name: 'op', start_time: Date.now(), end_time: Date.now() + 2 };
      expect((await writer.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: [span] }) })).status).toBe(202);
      // Served from the archive's staging table before any flush.
      const staged = (await (await writer.api('/v1/events?project_id=default&limit=100')).json()) as { data: Array<{ id: string }> };
      expect(staged.data.map((e) => e.id).sort()).toEqual([...events].sort());
      await (writer.service.exporter('parquet') as ParquetExporter).flushNow();
      expect(files(join(lake, 'events')).length).toBeGreaterThan(0);
      expect(files(join(archive, 'events'))).toEqual([]); // flushed on its own schedule
      await (writer.service.exporter('parquet/archive') as ParquetExporter).flushNow();
      expect(files(join(archive, 'events')).length).toBeGreaterThan(0);
      const tables = (
        await databaseOf(writer.service.host)
          .reader()
          .runAndReadAll("SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'lake_%staging_events'")
      )
        .getRows()
        .flat();
      expect(tables.sort()).toEqual(['lake_archive_staging_events', 'lake_staging_events']);
    } finally {
      await writer.stop();
    }
  });

  it('serves the read API from the lake with no receiver and no pipeline (a query node)', async () => {
    const yaml = `
exporters:
  parquet:
    path: ${lake}
service:
  retention:
    events_days: 1
    traces_days: 1
  storage:
    events: [parquet]
    traces: [parquet]
`;
    const query = await startService({ yaml, dataDir: join(root, 'query') });
    try {
      const list = (await (await query.api('/v1/events?project_id=default&limit=100')).json()) as { data: Array<{ id: string }> };
      expect(list.data.map((e) => e.id).sort()).toEqual([...events].sort());
      const issues = (await (await query.api('/v1/issues?project_id=default')).json()) as { data: Array<{ count: number }> };
      expect(issues.data.reduce((sum, issue) => sum + issue.count, 0)).toBe(events.length);
      expect((await query.api(`/v1/traces/${trace}`)).status).toBe(200);
      // Nothing to ingest with: no receiver mounted the POST routes.
      expect((await query.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent()) })).status).toBe(405);
      // A read-only exporter leaves the lake to its writer: no recovery, no flush, no compaction,
      // and no retention (its one-day setting would drop the writer's older partitions).
      expect(existsSync(join(root, 'query', 'lake'))).toBe(false);
      expect((await query.service.runRetention()).deletedPartitions).toEqual([]);
      expect(files(join(lake, 'events')).length).toBeGreaterThan(0);
    } finally {
      await query.stop();
    }
  });
});
