// An alert rule as the API takes and returns it, and its validation: every bad field is listed
// with its path, so POST and PATCH /v1/alerts answer one 400 naming all of them.
import type { FieldError } from '../engine/item.js';
import { isEmailAddress } from './email-address.js';
import { LEVELS, type Level } from './event.js';

export const ALERT_TYPES = ['new_issue', 'regression', 'error_spike', 'latency'] as const;
export type AlertType = (typeof ALERT_TYPES)[number];
export const ALERT_STATES = ['ok', 'firing'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

export interface SpikeConditions {
  /** Fires when more than `threshold` matching events arrive within `window`. */
  threshold?: number;
  /** Fires when the window holds more than (1 + p/100) times the comparison window's rate. */
  percent_increase?: number;
  window: string;
  comparison_window?: string;
  issue_id?: string;
  level?: Level;
  tags?: Record<string, string>;
}

export interface LatencyConditions {
  service: string;
  operation?: string;
  percentile: number;
  threshold_ms: number;
  window: string;
  min_samples: number;
}

export type Conditions = Record<string, never> | SpikeConditions | LatencyConditions;

export type AlertAction =
  { type: 'webhook'; url: string; secret?: string } | { type: 'slack'; url: string } | { type: 'email'; to: string[] } | { type: 'log' };

/** Recipients of one email action, at most. */
export const MAX_EMAIL_RECIPIENTS = 20;

/** What a client sets on a rule (the body of POST, and of PATCH merged over the rule). */
export interface AlertRuleInput {
  project_id: string;
  name: string;
  type: AlertType;
  conditions: Conditions;
  actions: AlertAction[];
  environment: string | null;
  enabled: boolean;
  frequency: string;
}

export const DEFAULT_FREQUENCY = '30m';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const UNITS: Record<string, number> = { s: 1000, m: MINUTE, h: 60 * MINUTE, d: DAY };
const MAX_ACTIONS = 10;

/** `90s`, `5m`, `1h`, `7d` in milliseconds; undefined if it is not such a duration. */
export function parseDuration(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^(\d{1,7})(s|m|h|d)$/.exec(text);
  return match ? Number(match[1]) * UNITS[match[2]] : undefined;
}

export function windowMs(rule: { conditions: Conditions }): number {
  return parseDuration((rule.conditions as { window?: string }).window) ?? 0;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

class Checker {
  readonly errors: FieldError[] = [];
  add(path: string, message: string): void {
    this.errors.push({ path, message });
  }
  string(value: unknown, path: string, max: number): value is string {
    if (typeof value !== 'string' || value.trim() === '' || value.length > max) {
      this.add(path, `must be a non-empty string of at most ${max} characters`);
      return false;
    }
    return true;
  }
  window(value: unknown, path: string): void {
    const ms = parseDuration(value);
    if (ms === undefined || ms < MINUTE || ms > 7 * DAY) this.add(path, 'must be a duration from 1m to 7d, e.g. 5m, 1h, 1d');
  }
  unknownKeys(object: Json, allowed: readonly string[], path: string): void {
    for (const key of Object.keys(object)) if (!allowed.includes(key)) this.add(path ? `${path}.${key}` : key, 'is not a known field');
  }
}

const RULE_FIELDS = ['project_id', 'name', 'type', 'conditions', 'actions', 'environment', 'enabled', 'frequency'] as const;

/**
 * Checks a whole rule (POST's body, or PATCH's merged over the stored rule) and returns it with
 * its defaults filled in, or every problem found.
 */
export function validateRule(body: unknown): { rule: AlertRuleInput } | { errors: FieldError[] } {
  const check = new Checker();
  if (!isObject(body)) return { errors: [{ path: '', message: 'must be a JSON object' }] };
  check.unknownKeys(body, RULE_FIELDS, '');
  if (body.project_id === undefined) check.add('project_id', 'is required with an organization key');
  else check.string(body.project_id, 'project_id', 64);
  check.string(body.name, 'name', 200);
  const type = body.type;
  if (!(ALERT_TYPES as readonly unknown[]).includes(type)) check.add('type', `must be one of ${ALERT_TYPES.join(', ')}`);
  const conditions = body.conditions ?? {};
  if (!isObject(conditions)) check.add('conditions', 'must be an object');
  else if ((ALERT_TYPES as readonly unknown[]).includes(type)) checkConditions(check, type as AlertType, conditions);
  checkActions(check, body.actions);
  if (body.environment !== undefined && body.environment !== null) {
    if (type === 'latency') check.add('environment', 'does not apply to latency rules, which select spans by service and operation');
    else check.string(body.environment, 'environment', 64);
  }
  if (body.enabled !== undefined && typeof body.enabled !== 'boolean') check.add('enabled', 'must be true or false');
  const frequency = body.frequency ?? DEFAULT_FREQUENCY;
  const frequencyMs = parseDuration(frequency);
  if (frequencyMs === undefined || frequencyMs > 7 * DAY) check.add('frequency', 'must be a duration from 0s to 7d, e.g. 30m');
  if (check.errors.length) return { errors: check.errors };
  return {
    rule: {
      project_id: body.project_id as string,
      name: (body.name as string).trim(),
      type: type as AlertType,
      conditions: normalizeConditions(type as AlertType, conditions as Json),
      actions: (body.actions as Json[]).map(normalizeAction),
      environment: (body.environment as string | null | undefined) ?? null,
      enabled: (body.enabled as boolean | undefined) ?? true,
      frequency: frequency as string,
    },
  };
}

function checkConditions(check: Checker, type: AlertType, c: Json): void {
  const number = (key: string, min: number, max: number, integer = false): boolean => {
    const value = c[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      check.add(`conditions.${key}`, `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
      return false;
    }
    return true;
  };
  switch (type) {
    case 'new_issue':
    case 'regression':
      check.unknownKeys(c, [], 'conditions');
      return;
    case 'error_spike': {
      check.unknownKeys(c, ['threshold', 'percent_increase', 'window', 'comparison_window', 'issue_id', 'level', 'tags'], 'conditions');
      const hasThreshold = c.threshold !== undefined;
      const hasPercent = c.percent_increase !== undefined;
      if (hasThreshold === hasPercent) check.add('conditions.threshold', 'give either threshold (an event count) or percent_increase, not both');
      if (hasThreshold) number('threshold', 0, 1e9, true);
      if (hasPercent) {
        number('percent_increase', 1, 1e6);
        check.window(c.comparison_window, 'conditions.comparison_window');
      } else if (c.comparison_window !== undefined) check.add('conditions.comparison_window', 'applies only with percent_increase');
      check.window(c.window, 'conditions.window');
      if (c.issue_id !== undefined) check.string(c.issue_id, 'conditions.issue_id', 64);
      if (c.level !== undefined && !(LEVELS as readonly unknown[]).includes(c.level)) check.add('conditions.level', `must be one of ${LEVELS.join(', ')}`);
      if (c.tags !== undefined) {
        if (!isObject(c.tags) || Object.keys(c.tags).length > 20) check.add('conditions.tags', 'must be an object of at most 20 tag names to string values');
        else for (const [key, value] of Object.entries(c.tags)) if (typeof value !== 'string') check.add(`conditions.tags.${key}`, 'must be a string');
      }
      return;
    }
    case 'latency':
      check.unknownKeys(c, ['service', 'operation', 'percentile', 'threshold_ms', 'window', 'min_samples'], 'conditions');
      check.string(c.service, 'conditions.service', 200);
      if (c.operation !== undefined) check.string(c.operation, 'conditions.operation', 500);
      if (c.percentile !== undefined) number('percentile', 50, 99.9);
      number('threshold_ms', 0.001, 86_400_000);
      check.window(c.window, 'conditions.window');
      if (c.min_samples !== undefined) number('min_samples', 1, 1e9, true);
      return;
  }
}

function checkActions(check: Checker, actions: unknown): void {
  if (!Array.isArray(actions) || actions.length === 0 || actions.length > MAX_ACTIONS) {
    check.add('actions', `must be a list of 1 to ${MAX_ACTIONS} actions`);
    return;
  }
  actions.forEach((action, i) => {
    const path = `actions[${i}]`;
    if (!isObject(action)) return check.add(path, 'must be an object');
    switch (action.type) {
      case 'webhook':
        check.unknownKeys(action, ['type', 'url', 'secret'], path);
        checkUrl(check, action.url, `${path}.url`);
        if (action.secret !== undefined) check.string(action.secret, `${path}.secret`, 256);
        return;
      case 'slack':
        check.unknownKeys(action, ['type', 'url'], path);
        checkUrl(check, action.url, `${path}.url`);
        return;
      case 'log':
        check.unknownKeys(action, ['type'], path);
        return;
      case 'email':
        check.unknownKeys(action, ['type', 'to'], path);
        checkRecipients(check, action.to, `${path}.to`);
        return;
      default:
        check.add(`${path}.type`, 'must be one of webhook, slack, email, log');
    }
  });
}

function checkRecipients(check: Checker, to: unknown, path: string): void {
  if (!Array.isArray(to) || to.length === 0 || to.length > MAX_EMAIL_RECIPIENTS) {
    check.add(path, `must be a list of 1 to ${MAX_EMAIL_RECIPIENTS} email addresses`);
    return;
  }
  to.forEach((address, i) => {
    if (!isEmailAddress(address)) check.add(`${path}[${i}]`, 'must be an email address (name@example.com)');
  });
}

function checkUrl(check: Checker, value: unknown, path: string): void {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' && value.length <= 2048 ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) check.add(path, 'must be an http or https URL of at most 2048 characters');
  else if (url.username || url.password) check.add(path, 'must not carry credentials (use the secret for signing)');
}

function normalizeConditions(type: AlertType, c: Json): Conditions {
  if (type === 'latency') {
    const { service, operation, percentile, threshold_ms, window, min_samples } = c as unknown as LatencyConditions;
    return { service, ...(operation === undefined ? {} : { operation }), percentile: percentile ?? 95, threshold_ms, window, min_samples: min_samples ?? 10 };
  }
  if (type === 'error_spike') return { ...(c as unknown as SpikeConditions) };
  return {};
}

function normalizeAction(action: Json): AlertAction {
  if (action.type === 'webhook')
    return { type: 'webhook', url: action.url as string, ...(action.secret === undefined ? {} : { secret: action.secret as string }) };
  if (action.type === 'slack') return { type: 'slack', url: action.url as string };
  if (action.type === 'email') return { type: 'email', to: [...new Set((action.to as string[]).map((address) => address.toLowerCase()))] };
  return { type: 'log' };
}
