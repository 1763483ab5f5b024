import { describe, expect, it } from 'vitest';
import type { ErrorEvent } from '../../src/records/event.js';
import { eventDocumentJson, toEventDocument } from '../../src/records/event-document.js';

function event(overrides: Partial<ErrorEvent> = {}): ErrorEvent {
  return {
    id: '0192f0a4-7b1c-7d2e-8f00-123456789abc',
    timestamp: '2026-11-22T10:00:00.000Z',
    received_at: '2026-11-22T10:00:00.100Z',
    project_id: 'p1',
    level: 'error',
    environment: 'production',
    release: 'web@1.0.0',
    issue_id: 'abcdef0123456789',
    grouping_hash: 'f'.repeat(64),
    processing_errors: [],
    exception: {
      type: 'TypeError',
      value: 'x is "undefined"\n',
      stacktrace: [
        { filename: 'app.js', function: 'main', lineno: 1, colno: 2, in_app: true },
        { filename: 'lib.js', function: 'run', lineno: 3, in_app: false },
      ],
    },
    ...overrides,
  } as ErrorEvent;
}

describe('eventDocumentJson', () => {
  it('is the JSON of toEventDocument, frames written once as stacktrace and again as raw_stacktrace', () => {
    const e = event();
    const doc = JSON.parse(eventDocumentJson(e));
    expect(doc).toEqual(JSON.parse(JSON.stringify(toEventDocument(e))));
    expect(doc.exception.raw_stacktrace).toEqual(e.exception.stacktrace);
    expect(doc).not.toHaveProperty('grouping_hash');
  });

  it('keeps raw frames that differ from the symbolicated ones', () => {
    const e = event({ raw_stacktrace: [{ filename: 'bundle.min.js', lineno: 1, colno: 999 }] });
    const doc = JSON.parse(eventDocumentJson(e));
    expect(doc.exception.raw_stacktrace).toEqual([{ filename: 'bundle.min.js', lineno: 1, colno: 999 }]);
    expect(doc.exception.stacktrace).toHaveLength(2);
    expect(doc).not.toHaveProperty('raw_stacktrace');
  });

  it('handles an exception without frames', () => {
    const e = event({ exception: { type: 'Error', value: '' } });
    expect(JSON.parse(eventDocumentJson(e))).toEqual(JSON.parse(JSON.stringify(toEventDocument(e))));
  });
});
