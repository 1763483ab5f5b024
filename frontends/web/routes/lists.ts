// GET /traces and GET /replays: the lists behind the navigation, read with the same filters,
// parsers and cursors as GET /v1/traces and GET /v1/replays.
import type { HttpHost } from '../../../src/http/host.js';
import { ApiError } from '../../../src/http/errors.js';
import { parseDurations } from '../../../src/http/params.js';
import { InvalidCursorError } from '../../../src/http/cursor.js';
import type { PageKit } from '../kit.js';
import type { FilterField } from '../pages/parts.js';
import { ReplaysPage } from '../pages/replays.js';
import { TracesPage } from '../pages/traces.js';

const PAGE_SIZE = 25;

/** A page of a list, or the message of a cursor this service did not issue (the page says it, with a 400). */
export async function pageOrError<T>(
  read: () => Promise<{ data: T[]; nextCursor: string | null }>,
): Promise<{ data: T[]; nextCursor: string | null; error?: string }> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof InvalidCursorError) return { data: [], nextCursor: null, error: e.message };
    throw e;
  }
}

/** The filters' values, and the message of a bad one (the list then shows nothing but the form). */
function readFilters(q: URLSearchParams, names: string[]): { values: Record<string, string>; durations: ReturnType<typeof parseDurations>; error?: string } {
  const values = Object.fromEntries(names.map((n) => [n, (q.get(n) ?? '').trim()]));
  const numbers = new URLSearchParams();
  for (const n of ['min_duration_ms', 'max_duration_ms']) if (values[n]) numbers.set(n, values[n]);
  try {
    return { values, durations: parseDurations(numbers) };
  } catch (error) {
    if (error instanceof ApiError) return { values, durations: {}, error: error.message };
    throw error;
  }
}

const durationFields = (values: Record<string, string>): FilterField[] => [
  { name: 'min_duration_ms', label: 'Min duration (ms)', value: values.min_duration_ms, type: 'number' },
  { name: 'max_duration_ms', label: 'Max duration (ms)', value: values.max_duration_ms, type: 'number' },
];

export function registerListPages(http: HttpHost, kit: PageKit): void {
  http.page(
    'GET',
    '/traces',
    kit.view(async (event, s) => {
      const { storage } = kit.need();
      const q = event.url.searchParams;
      const { project, projects } = await kit.pickProject(s, q.get('project'));
      const { values, durations, error } = readFilters(q, ['environment', 'release', 'service', 'status', 'min_duration_ms', 'max_duration_ms']);
      const filters: FilterField[] = [
        { name: 'environment', label: 'Environment', value: values.environment },
        { name: 'release', label: 'Release', value: values.release },
        { name: 'service', label: 'Service', value: values.service },
        ...durationFields(values),
        {
          name: 'status',
          label: 'Status',
          value: values.status,
          options: [
            ['', 'Any'],
            ['error', 'With errors'],
            ['ok', 'Without errors'],
          ],
        },
      ];
      const base = { viewer: s.viewer, projects: projects.map((p) => p.id), project: project.id, filters, query: q, traces: [], nextCursor: null };
      if (!storage.reads('traces')) return kit.html(TracesPage({ ...base, unavailable: 'No exporter of this service stores traces.' }));
      if (error) return kit.html(TracesPage({ ...base, error }), 400);
      const page = await pageOrError(() =>
        storage.traces.list(
          {
            dataset: s.session.dataset,
            projectId: project.id,
            environment: values.environment || undefined,
            release: values.release || undefined,
            service: values.service || undefined,
            status: values.status === 'ok' || values.status === 'error' ? values.status : undefined,
            ...durations,
          },
          PAGE_SIZE,
          q.get('cursor') || undefined,
        ),
      );
      return kit.html(TracesPage({ ...base, traces: page.data, nextCursor: page.nextCursor, error: page.error }), page.error ? 400 : 200);
    }),
  );

  http.page(
    'GET',
    '/replays',
    kit.view(async (event, s) => {
      const { storage } = kit.need();
      const q = event.url.searchParams;
      const { project, projects } = await kit.pickProject(s, q.get('project'));
      const { values, durations, error } = readFilters(q, ['environment', 'release', 'user', 'url', 'errors', 'min_duration_ms', 'max_duration_ms']);
      const filters: FilterField[] = [
        { name: 'environment', label: 'Environment', value: values.environment },
        { name: 'release', label: 'Release', value: values.release },
        { name: 'user', label: 'User id', value: values.user },
        { name: 'url', label: 'URL contains', value: values.url },
        ...durationFields(values),
        {
          name: 'errors',
          label: 'Errors',
          value: values.errors,
          options: [
            ['', 'Any'],
            ['true', 'With errors'],
            ['false', 'Without errors'],
          ],
        },
      ];
      const base = { viewer: s.viewer, projects: projects.map((p) => p.id), project: project.id, filters, query: q, replays: [], nextCursor: null };
      if (!storage.reads('replays')) return kit.html(ReplaysPage({ ...base, unavailable: 'No exporter of this service stores replays.' }));
      if (error) return kit.html(ReplaysPage({ ...base, error }), 400);
      const page = await pageOrError(() =>
        storage.replays.list(
          {
            dataset: s.session.dataset,
            projectId: project.id,
            environment: values.environment || undefined,
            release: values.release || undefined,
            userId: values.user || undefined,
            url: values.url || undefined,
            hasErrors: values.errors === 'true' ? true : values.errors === 'false' ? false : undefined,
            ...durations,
          },
          PAGE_SIZE,
          q.get('cursor') || undefined,
        ),
      );
      return kit.html(ReplaysPage({ ...base, replays: page.data, nextCursor: page.nextCursor, error: page.error }), page.error ? 400 : 200);
    }),
  );
}
