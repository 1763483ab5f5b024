// Small pieces the list and detail pages share: a time shown relative to now with the absolute
// time on hover, sizes in KB/MB, rates as percentages, a filter form and the next-page link.
import { h } from '../jsx.js';

const UNITS: Array<[number, string]> = [
  [365 * 86_400_000, 'year'],
  [30 * 86_400_000, 'month'],
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
];

/** "3 minutes ago", "in 2 hours", "just now". */
export function relativeTime(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const delta = now - ms;
  const abs = Math.abs(delta);
  if (abs < 10_000) return 'just now';
  const [size, unit] = UNITS.find(([u]) => abs >= u) ?? UNITS[UNITS.length - 1];
  const n = Math.floor(abs / size);
  const text = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return delta >= 0 ? `${text} ago` : `in ${text}`;
}

/** A time as "5 minutes ago", its ISO form in the tooltip and in `datetime`. */
export function When({ at, now }: { at: string | null | undefined; now?: number }) {
  if (!at) return <span>—</span>;
  return (
    <time datetime={at} title={at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}>
      {relativeTime(at, now)}
    </time>
  );
}

/** Bytes as B, KB, MB or GB (powers of 1024, one decimal past KB). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

/** A rate from 0 to 1 as "99.5 %", or "—" without data. */
export function percent(rate: number | null): string {
  return rate === null ? '—' : `${(Math.floor(rate * 1000) / 10).toFixed(1)} %`;
}

/** Milliseconds as "850 ms", "2.4 s" or "3 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export interface FilterField {
  name: string;
  label: string;
  value: string;
  /** Choices of a <select> ([value, label]); a text input without. */
  options?: Array<[string, string]>;
  type?: 'text' | 'number';
}

/** A GET form of labelled filters and a submit button. */
export function FilterForm({ action, fields, hidden = {} }: { action: string; fields: FilterField[]; hidden?: Record<string, string> }) {
  return (
    <form method="get" action={action} class="filters">
      {Object.entries(hidden).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      {fields.map((f) => (
        <p>
          <label for={`f-${f.name}`}>{f.label}</label>
          {f.options ? (
            <select id={`f-${f.name}`} name={f.name}>
              {f.options.map(([v, text]) => (
                <option value={v} selected={v === f.value}>
                  {text}
                </option>
              ))}
            </select>
          ) : (
            <input id={`f-${f.name}`} name={f.name} value={f.value} type={f.type ?? 'text'} min={f.type === 'number' ? '0' : undefined} />
          )}
        </p>
      ))}
      <p>
        <button type="submit">Filter</button>
      </p>
    </form>
  );
}

/** The link to the next page: this page's query with `cursor` set. */
export function NextPage({ path, query, cursor }: { path: string; query: URLSearchParams; cursor: string | null }) {
  if (!cursor) return null;
  const next = new URLSearchParams(query);
  next.set('cursor', cursor);
  return (
    <p class="pager">
      <a href={`${path}?${next.toString()}`} rel="next">
        Older
      </a>
    </p>
  );
}

/** A project picker for list pages (a GET form that keeps nothing else). */
export function ProjectPicker({ action, projects, current }: { action: string; projects: string[]; current: string }) {
  if (projects.length < 2) return null;
  return (
    <form method="get" action={action} class="inline">
      <label for="project-pick">Project</label>{' '}
      <select id="project-pick" name="project">
        {projects.map((id) => (
          <option value={id} selected={id === current}>
            {id}
          </option>
        ))}
      </select>{' '}
      <button type="submit">Show</button>
    </form>
  );
}
