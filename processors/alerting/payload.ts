// Builds the notification of a firing (src/records/alert-payload.ts has its shape).
import { describe, type AlertPayload } from '../../src/records/alert-payload.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { AlertRule } from '../../extensions/alerts/alert-rules.js';
import type { Measurement } from './windows.js';

export interface IssueFacts {
  id: string;
  title: string;
  culprit: string | null;
  count: number;
  status: string;
}

export function eventSummary(event: ErrorEvent): AlertPayload['event'] {
  return {
    id: event.id,
    timestamp: event.timestamp,
    level: event.level,
    environment: event.environment,
    release: event.release,
    message: event.message ?? null,
    exception: { type: event.exception.type, value: event.exception.value },
  };
}

export function buildPayload(input: {
  key: string;
  rule: AlertRule;
  state: AlertPayload['state'];
  firedAt: number;
  project: { id: string; name: string };
  appUrl: string;
  issue?: IssueFacts;
  event?: ErrorEvent;
  measurement?: Measurement;
  transition?: string;
}): AlertPayload {
  const { rule, measurement, issue } = input;
  const payload: Omit<AlertPayload, 'text'> = {
    id: input.key,
    rule: { id: rule.id, name: rule.name, type: rule.type },
    state: input.state,
    fired_at: new Date(input.firedAt).toISOString(),
    project: input.project,
    environment: rule.environment,
    issue: issue ? { ...issue, permalink: `${input.appUrl}/issues/${issue.id}` } : null,
    event: input.event ? eventSummary(input.event) : null,
    value: measurement ? measurement.value : null,
    threshold: measurement ? measurement.threshold : null,
    unit: measurement ? measurement.unit : null,
    window: (rule.conditions as { window?: string }).window ?? null,
    transition: input.transition ?? null,
  };
  return { ...payload, text: describe(payload) };
}
