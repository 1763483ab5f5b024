// Fuzz: the event validation (processors/validation) takes any parsed body and either rejects it
// with validation_failed and field-level details, or makes an ErrorEvent that can be stored (and
// grouped: the grouping processor comes next in every events pipeline).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { validationFactory } from '../../processors/validation/factory.js';
import { groupingConfigSchema } from '../../processors/grouping/config.js';
import { GroupingProcessor } from '../../processors/grouping/processor.js';
import { validateEvent } from '../../processors/validation/validate.js';
import { settingsHost } from '../support/test-host.js';
import type { Item } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { MAX_STORABLE_MILLIS } from '../../src/records/nanos.js';
import { FUZZ_TIMEOUT_MS, mostlyValid, oddValue } from './fuzz-config.js';
import { expectCompiledParity } from '../support/validation-parity.js';

const RECEIVED = Date.parse('2026-11-22T12:00:00Z');
const config = validationConfigSchema.parse({ max_tags: 5, max_frames: 5, max_breadcrumbs: 3, max_string_length: 50 });
const host = settingsHost({ retention: { events_days: 90, traces_days: 30 } });
const processor = validationFactory.create({ id: { type: 'validation', text: 'validation' }, config, host, signal: 'events', pipeline: 'events' });
const grouping = new GroupingProcessor(groupingConfigSchema.parse({}));

const timestamp = fc.oneof(
  { arbitrary: fc.integer({ min: RECEIVED - 100 * 86_400_000, max: RECEIVED + 600_000 }).map((ms) => new Date(ms).toISOString()), weight: 6 },
  fc.date({ min: new Date('1960-01-01'), max: new Date('2300-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom(
    '2026-11-22T10:00:00Z',
    '2026-11-22T10:00:00+05:30',
    '2026-11-22T10:00',
    '1970-01-01T00:00:00Z',
    '2262-04-11T23:47:16.855Z',
    '2026-02-30T00:00:00Z',
  ),
);
const frame = mostlyValid({
  filename: fc.string(),
  function: fc.string(),
  lineno: fc.nat(),
  colno: fc.integer(),
  in_app: fc.boolean(),
  pre_context: fc.array(fc.string()),
});
const event = mostlyValid(
  {
    id: fc.oneof(
      fc.uuid(),
      fc.uuid().map((u) => u.replaceAll('-', '').toUpperCase()),
    ),
    timestamp,
    environment: fc.string({ minLength: 1 }),
    release: fc.string({ minLength: 1 }),
    level: fc.constantFrom('fatal', 'error', 'warning', 'info', 'debug'),
    message: fc.string({ maxLength: 100 }),
    exception: mostlyValid({ type: fc.string({ minLength: 1 }), value: fc.string(), stacktrace: fc.array(frame, { maxLength: 8 }) }, ['type', 'value']),
    user: mostlyValid({ id: fc.oneof(fc.string(), fc.integer()), email: fc.string() }),
    tags: fc.dictionary(
      fc.string({ maxLength: 8 }),
      fc.oneof({ arbitrary: fc.oneof(fc.string(), fc.double(), fc.boolean()), weight: 30 }, { arbitrary: oddValue, weight: 1 }),
      { maxKeys: 8 },
    ),
    trace_id: fc.stringMatching(/^[0-9A-Za-z_-]{1,64}$/),
    breadcrumbs: fc.array(mostlyValid({ timestamp, message: fc.string(), data: fc.object() }), { maxLength: 5 }),
    contexts: fc.dictionary(fc.string(), fc.object({ maxDepth: 2 })),
    fingerprint: fc.array(fc.string({ minLength: 1 })),
    unknown_field: oddValue,
  },
  ['timestamp', 'environment', 'release', 'exception'],
);

/** A validation's answer as JSON, the id it assigned left out (a new UUIDv7 each time). */
function sameButId(result: ReturnType<typeof validateEvent>): string {
  if (!result.ok) return JSON.stringify(result);
  const { id, ...event } = result.event;
  return JSON.stringify({ ...result, event: { id: id.length, ...event } });
}

function expectDetails(details: unknown): void {
  expect(Array.isArray(details) && details.length > 0).toBe(true);
  for (const detail of details as unknown[]) expect(detail).toEqual({ path: expect.any(String), message: expect.any(String) });
}

describe('fuzz: event validation', () => {
  it(
    'validateEvent: any value is rejected with details or accepted, never a throw',
    () => {
      fc.assert(
        fc.property(fc.oneof(fc.anything(), event), (raw) => {
          expectCompiledParity(raw); // the compiled accept-path says what zod says
          const owned = structuredClone(raw);
          const result = validateEvent(raw, config);
          if (!result.ok) expectDetails(result.errors);
          else expect(JSON.parse(JSON.stringify(result.event))).toBeTypeOf('object');
          // A body validation owns (made of its own objects) gives the same answer, the same event.
          expect(sameButId(validateEvent(owned, config, true))).toEqual(sameButId(result));
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'the processor rejects with validation_failed or makes a storable ErrorEvent',
    async () => {
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(event, async (raw) => {
          const item: Item = { data: structuredClone(raw), tenant: { orgId: 'o', projectId: 'p', dataset: 'live' }, receivedAt: RECEIVED, size: 1 };
          await processor.process([item]);
          if (item.outcome) {
            expect(item.outcome).toMatchObject({ kind: 'rejected', code: 'validation_failed' });
            if (item.outcome.kind === 'rejected') expectDetails(item.outcome.details);
            return;
          }
          const stored = item.data as ErrorEvent;
          const millis = Date.parse(stored.timestamp);
          expect(millis).toBeGreaterThanOrEqual(RECEIVED - 90 * 86_400_000);
          expect(millis).toBeLessThanOrEqual(Math.min(RECEIVED + 300_000, MAX_STORABLE_MILLIS));
          expect(stored.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
          for (const value of Object.values(stored.tags ?? {})) expect(typeof value).toBe('string');
          expect(Object.keys(stored.tags ?? {}).length).toBeLessThanOrEqual(config.max_tags);
          accepted++;
          grouping.process([item]);
          expect(stored.issue_id).toMatch(/^[0-9a-f]{16}$/);
          expect(JSON.parse(JSON.stringify(stored))).toMatchObject({ id: stored.id, project_id: 'p', issue_id: stored.issue_id });
        }),
      );
      expect(accepted, 'the generated events should often be valid, to reach the post-pass and grouping').toBeGreaterThan(
        fc.readConfigureGlobal().numRuns! / 10,
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
