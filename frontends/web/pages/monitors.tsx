// Monitors: the list (status, last check-in or check, next expected run, uptime) and a page per
// monitor with its recent check-ins (cron) or checks and their latency (uptime), and its issue.
import { Fragment, h } from '../jsx.js';
import type { Checkin, Monitor, UptimeCheck } from '../../../src/storage/monitors.js';
import { BarChart } from './charts.js';
import { Page, TableHead, type Viewer } from './layout.js';
import { ProjectPicker, When } from './parts.js';

export interface MonitorRow {
  monitor: Monitor;
  /** Uptime monitors: percent of good checks in 24 h (null without checks). */
  uptime24h: number | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const href = (m: Monitor) => `/monitors/${encodeURIComponent(m.slug)}?project=${encodeURIComponent(m.project_id)}`;
const statusOf = (m: Monitor) => (m.paused ? 'paused' : m.status);

export function MonitorsPage(v: { viewer: Viewer; projects: string[]; project: string; rows: MonitorRow[] | undefined }) {
  return (
    <Page viewer={v.viewer} title="Monitors" section="/monitors">
      <h1>Monitors of {v.project}</h1>
      <ProjectPicker action="/monitors" projects={v.projects} current={v.project} />
      {v.rows === undefined ? (
        <p class="empty">This service runs no monitors receiver (add `monitors` to the events pipeline's receivers).</p>
      ) : v.rows.length === 0 ? (
        <p class="empty">
          No monitors yet: create one with <code>POST /v1/monitors</code>, or let a Sentry SDK's <code>withMonitor</code> create it.
        </p>
      ) : (
        <table class="list monitors">
          <TableHead cols={['Monitor', 'Type', 'Status', 'Last check-in or check', 'Next expected', 'Uptime 24 h', 'Issue']} />
          <tbody>
            {v.rows.map(({ monitor: m, uptime24h }) => (
              <tr data-monitor={m.slug}>
                <td>
                  <a href={href(m)}>{m.name}</a>
                </td>
                <td>{m.type}</td>
                <td>
                  <strong class={`monitor-${statusOf(m)}`}>{statusOf(m)}</strong>
                </td>
                <td>
                  <When at={iso(m.last_checkin_at)} />
                </td>
                <td>{m.paused ? '—' : <When at={iso(m.next_expected_at)} />}</td>
                <td>{m.type === 'uptime' ? (uptime24h === null ? '—' : `${uptime24h} %`) : '—'}</td>
                <td>{m.issue_id ? <a href={`/issues/${encodeURIComponent(m.issue_id)}`}>Monitor failure: {m.slug}</a> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}

export function MonitorPage(v: {
  viewer: Viewer;
  monitor: Monitor;
  checkins: Checkin[];
  checks: UptimeCheck[];
  uptime24h: number | null;
  uptime30d: number | null;
}) {
  const m = v.monitor;
  return (
    <Page viewer={v.viewer} title={`Monitor ${m.slug}`} section="/monitors">
      <p>
        <a href={`/monitors?project=${encodeURIComponent(m.project_id)}`}>Monitors of {m.project_id}</a>
      </p>
      <h1>{m.name}</h1>
      <dl class="pairs">
        <dt>Status</dt>
        <dd>
          <strong class={`monitor-${statusOf(m)}`}>{statusOf(m)}</strong>
        </dd>
        {m.cron && (
          <>
            <dt>Schedule</dt>
            <dd>
              {m.cron.schedule.type === 'crontab' ? <code>{m.cron.schedule.value}</code> : `every ${m.cron.schedule.value} ${m.cron.schedule.unit}(s)`} (
              {m.cron.timezone}
              ), margin {m.cron.checkin_margin_minutes} min, at most {m.cron.max_runtime_minutes} min per run
            </dd>
          </>
        )}
        {m.uptime && (
          <>
            <dt>Checks</dt>
            <dd>
              {m.uptime.method} <code>{m.uptime.url}</code> every {m.uptime.interval_seconds} s, down after {m.uptime.failure_threshold} failures
            </dd>
            <dt>Uptime</dt>
            <dd>
              {v.uptime24h === null ? '—' : `${v.uptime24h} %`} (24 h), {v.uptime30d === null ? '—' : `${v.uptime30d} %`} (30 days)
            </dd>
          </>
        )}
        <dt>Next expected</dt>
        <dd>{m.paused ? '— (paused)' : <When at={iso(m.next_expected_at)} />}</dd>
        <dt>Issue</dt>
        <dd>{m.issue_id ? <a href={`/issues/${encodeURIComponent(m.issue_id)}`}>Monitor failure: {m.slug}</a> : 'none: no failure yet'}</dd>
      </dl>
      {m.cron ? <CheckinTable checkins={v.checkins} /> : <CheckTable checks={v.checks} />}
    </Page>
  );
}

function CheckinTable({ checkins }: { checkins: Checkin[] }) {
  if (checkins.length === 0) return <p class="muted">No check-ins yet.</p>;
  return (
    <section aria-labelledby="checkins">
      <h2 id="checkins">Recent check-ins</h2>
      <table class="list checkins">
        <TableHead cols={['Time', 'Status', 'Duration', 'Expected at', 'Environment']} />
        <tbody>
          {checkins.map((c) => (
            <tr>
              <td>
                <When at={iso(c.created_at)} />
              </td>
              <td>
                <strong class={`checkin-${c.status}`}>{c.status}</strong>
              </td>
              <td>{c.duration_ms === null ? '—' : `${c.duration_ms} ms`}</td>
              <td>
                <When at={iso(c.expected_at)} />
              </td>
              <td>{c.environment ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function CheckTable({ checks }: { checks: UptimeCheck[] }) {
  if (checks.length === 0) return <p class="muted">No checks yet.</p>;
  const oldestFirst = [...checks].reverse();
  return (
    <section aria-labelledby="checks">
      <h2 id="checks">Recent checks</h2>
      <BarChart
        counts={oldestFirst.map((c) => c.latency_ms ?? 0)}
        labels={oldestFirst.map((c) => new Date(c.at).toISOString().slice(11, 19))}
        title="Latency of the recent checks (ms)"
      />
      <table class="list checks">
        <TableHead cols={['Time', 'Result', 'Status code', 'Latency']} />
        <tbody>
          {checks.map((c) => (
            <tr>
              <td>
                <When at={iso(c.at)} />
              </td>
              <td>{c.ok ? 'ok' : c.error}</td>
              <td>{c.status_code ?? '—'}</td>
              <td>{c.latency_ms === null ? '—' : `${c.latency_ms} ms`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
