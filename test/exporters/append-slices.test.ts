// The duckdb exporter appends an index batch in slices with a turn of the event loop between them
// (exporters/duckdb/kept-appenders.ts): a batch larger than a slice is still one transaction, all
// of it or none, and a row DuckDB refuses in a later slice quarantines that row alone.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { APPEND_SLICE_ROWS } from '../../exporters/duckdb/kept-appenders.js';
import type { Item } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { fullEvent, startService, type TestService } from '../support/service.js';

const tenant = { orgId: 'default', projectId: 'default', dataset: 'live' as const };

function eventItem(timestamp: string): Item<ErrorEvent> {
  return {
    tenant,
    receivedAt: Date.now(),
    size: 100,
    data: {
      ...(fullEvent() as unknown as ErrorEvent),
      id: randomUUID(),
      timestamp,
      received_at: new Date().toISOString(),
      project_id: 'default',
      issue_id: '0123456789abcdef',
      processing_errors: [],
    },
  };
}

describe('index batches appended in slices', () => {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
  });

  it('indexes a batch of several slices in one transaction', async () => {
    svc = await startService();
    const exporter = svc.service.exporter('duckdb');
    if (!exporter) throw new Error('no duckdb exporter');
    const size = APPEND_SLICE_ROWS * 3 + 1;
    const now = new Date().toISOString();
    const items = Array.from({ length: size }, () => eventItem(now));
    await exporter.export('events', items);
    const page = (await (await svc.api(`/v1/events?project_id=default&limit=${size}`)).json()) as { data: Array<{ id: string }> };
    expect(new Set(page.data.map((e) => e.id))).toEqual(new Set(items.map((item) => item.data.id)));
    const issue = (await (await svc.api('/v1/issues/0123456789abcdef')).json()) as { count: number };
    expect(issue.count).toBe(size);
    const metrics = await (await svc.api('/metrics')).text();
    expect(metrics).not.toMatch(/faultline_quarantined_items_total\{component="duckdb",signal="events"\} [1-9]/);
  });

  it('quarantines only the refused row of a later slice; the others are indexed', async () => {
    svc = await startService();
    const exporter = svc.service.exporter('duckdb');
    if (!exporter) throw new Error('no duckdb exporter');
    const size = APPEND_SLICE_ROWS * 2 + 50;
    const now = new Date().toISOString();
    const items = Array.from({ length: size }, () => eventItem(now));
    const refused = APPEND_SLICE_ROWS + 17; // in the second slice: the first one is flushed already
    items[refused] = eventItem('not a time');
    await exporter.export('events', items); // one call: one pending entry, indexed as one batch

    // A list waits for indexing (the quarantine included).
    expect((await svc.api('/v1/events?project_id=default&limit=1')).status).toBe(200);
    const metrics = await (await svc.api('/metrics')).text();
    expect(metrics).toMatch(/faultline_quarantined_items_total\{component="duckdb",signal="events"\} 1/);
    for (const at of [0, APPEND_SLICE_ROWS - 1, APPEND_SLICE_ROWS, refused - 1, refused + 1, size - 1])
      expect((await svc.api(`/v1/events/${items[at].data.id}`)).status).toBe(200);
    expect((await svc.api(`/v1/events/${items[refused].data.id}`)).status).toBe(404);
    const issue = (await (await svc.api('/v1/issues/0123456789abcdef')).json()) as { count: number };
    expect(issue.count).toBe(size - 1);
  });
});
