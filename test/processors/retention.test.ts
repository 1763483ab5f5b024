// The validation rejects items older than their signal's retention (service.retention.*_days,
// given through the processor's host settings), cutting by whole UTC days as the retention job.
import { describe, expect, it } from 'vitest';
import { settingsHost } from '../support/test-host.js';
import type { Item, Signal } from '../../src/engine/item.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { validationFactory } from '../../processors/validation/factory.js';

const RECEIVED = Date.parse('2026-11-22T10:00:00Z');

function processor(signal: Signal, retention?: { events_days: number; traces_days: number }) {
  const host = settingsHost(retention ? { retention } : {});
  return validationFactory.create({ id: { type: 'validation', text: 'validation' }, config: validationConfigSchema.parse({}), host, signal, pipeline: signal });
}

async function run(signal: Signal, data: unknown, retention?: { events_days: number; traces_days: number }): Promise<Item> {
  const item: Item = { data, tenant: { orgId: 'o', projectId: 'p', dataset: 'live' }, receivedAt: RECEIVED, size: 100 };
  await processor(signal, retention).process([item]);
  return item;
}

const event = (timestamp: string) => ({ timestamp, environment: 'production', release: 'r', exception: { type: 'E', value: 'v' } });
const span = (startMs: number) => ({ trace_id: 'ab'.repeat(16), span_id: 'cd'.repeat(8), name: 'op', start_time: startMs, end_time: startMs + 1 });

describe('validation: retention', () => {
  const retention = { events_days: 10, traces_days: 3 };

  it('keeps an event of the first kept day and rejects one of the day before, at timestamp', async () => {
    expect((await run('events', event('2026-11-13T00:00:00Z'), retention)).outcome).toBeUndefined();
    expect((await run('events', event('2026-11-12T23:59:59.999Z'), retention)).outcome).toEqual({
      kind: 'rejected',
      code: 'validation_failed',
      message: 'the event is invalid',
      details: [
        {
          path: 'timestamp',
          message: 'is before 2026-11-13, the first day kept: events are kept 10 days (service.retention.events_days), so it would be deleted at once',
        },
      ],
    });
  });

  it('rejects a span by its start time, at start_time', async () => {
    expect((await run('traces', span(Date.parse('2026-11-20T00:00:00Z')), retention)).outcome).toBeUndefined();
    expect((await run('traces', span(Date.parse('2026-11-19T23:59:59Z')), retention)).outcome).toMatchObject({
      kind: 'rejected',
      details: [{ path: 'start_time', message: expect.stringMatching(/^is before 2026-11-20, the first day kept: traces are kept 3 days/) }],
    });
    // An OTLP span without a start time reads as 1970: long gone.
    expect((await run('traces', span(0), retention)).outcome).toMatchObject({ kind: 'rejected', details: [{ path: 'start_time' }] });
  });

  it('keeps everything a century of retention covers', async () => {
    const century = { events_days: 36_500, traces_days: 36_500 };
    expect((await run('events', event('2001-01-01T00:00:00Z'), century)).outcome).toBeUndefined();
    expect((await run('traces', span(Date.parse('2001-01-01T00:00:00Z')), century)).outcome).toBeUndefined();
  });
});
