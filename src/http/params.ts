// Query-parameter parsing shared by the list endpoints: every bad value is a 400 invalid_parameter.
import type { Principal } from '../auth/authenticator.js';
import type { ProjectDirectory, ProjectRef } from '../auth/directory.js';
import { resolveProject } from '../auth/scope.js';
import { InvalidCursorError } from './cursor.js';
import { errors } from './errors.js';

export function parseLimit(query: URLSearchParams, fallback = 50, max = 1000): number {
  return parseInteger(query, 'limit', fallback, 1, max);
}

export function parseInteger(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw errors.invalidParameter(name, `must be an integer from ${min} to ${max}`);
  return Number(raw);
}

export function parseTime(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : NaN;
  if (Number.isNaN(ms)) throw errors.invalidParameter(name, 'must be an ISO 8601 date or date-time, e.g. 2026-01-31T12:00:00Z');
  return ms;
}

export function parseEnum<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) throw errors.invalidParameter(name, `must be one of ${allowed.join(', ')}`);
  return raw as T;
}

export function optional(query: URLSearchParams, name: string): string | undefined {
  const raw = query.get(name);
  return raw === null || raw === '' ? undefined : raw;
}

export const LIST_QUERY_DOCS = [
  { name: 'limit', description: 'Page size, 1-1000', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } },
  { name: 'cursor', description: 'The next_cursor of the previous page', schema: { type: 'string' } },
];

/**
 * The project a list route reads (the spec makes `project_id` required): a project key may omit
 * it (its own project); an organization key must name one.
 */
export async function listProject<P extends ProjectRef>(catalog: ProjectDirectory<P>, principal: Principal, query: URLSearchParams): Promise<P> {
  return namedProject(catalog, principal, optional(query, 'project_id'));
}

/** The project `requested` names, which an organization key must do (a project key may omit it). */
export async function namedProject<P extends ProjectRef>(catalog: ProjectDirectory<P>, principal: Principal, requested: string | undefined): Promise<P> {
  if (requested === undefined && !principal.projectId) throw errors.invalidParameter('project_id', 'is required with an organization key');
  return resolveProject(catalog, principal, requested);
}

export const LIST_PROJECT_DOC = {
  name: 'project_id',
  description: 'The project (required with an organization key; a project key may omit it)',
  schema: { type: 'string' },
};

/** `min_duration_ms` and `max_duration_ms` of the trace and replay lists (each 0 to a week). */
export function parseDurations(query: URLSearchParams): { minDurationMs?: number; maxDurationMs?: number } {
  const week = 7 * 24 * 3600 * 1000;
  const min = query.get('min_duration_ms') === null ? undefined : parseInteger(query, 'min_duration_ms', 0, 0, week);
  const max = query.get('max_duration_ms') === null ? undefined : parseInteger(query, 'max_duration_ms', 0, 0, week);
  if (min !== undefined && max !== undefined && min > max) throw errors.invalidParameter('max_duration_ms', 'must not be less than min_duration_ms');
  return { minDurationMs: min, maxDurationMs: max };
}

export const DURATION_DOCS = [
  { name: 'min_duration_ms', description: 'At least this long (milliseconds)', schema: { type: 'integer', minimum: 0 } },
  { name: 'max_duration_ms', description: 'At most this long (milliseconds)', schema: { type: 'integer', minimum: 0 } },
];

/** A list read whose `cursor` was not one this service issued answers 400 invalid_parameter. */
export async function withCursor<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidCursorError) throw errors.invalidParameter('cursor', error.message);
    throw error;
  }
}

/** The body of a list page: `{data, has_more, next_cursor}`. */
export function listBody<T>(page: { data: T[]; nextCursor: string | null }): { data: T[]; has_more: boolean; next_cursor: string | null } {
  return { data: page.data, has_more: page.nextCursor !== null, next_cursor: page.nextCursor };
}
