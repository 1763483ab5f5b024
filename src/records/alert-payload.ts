// The notification an alert sends: the webhook's JSON body (documented in
// processors/alerting/README.md), and the Slack message and log line made from it.
import type { AlertType } from './alert-rule.js';

export interface AlertPayload {
  /** The firing's key: the same for every action and every retry of this notification. */
  id: string;
  rule: { id: string; name: string; type: AlertType };
  /** `firing`, `resolved` (the condition cleared), or `test` (sent by `faultline alerts test`). */
  state: 'firing' | 'resolved' | 'test';
  fired_at: string;
  project: { id: string; name: string };
  environment: string | null;
  issue: { id: string; title: string; culprit: string | null; count: number; status: string; permalink: string } | null;
  event: {
    id: string;
    timestamp: string;
    level: string;
    environment: string;
    release: string;
    message: string | null;
    exception: { type: string; value: string };
  } | null;
  /** What was measured (events in the window, percent increase, pXX in ms), against the threshold; null for new_issue and regression. */
  value: number | null;
  threshold: number | null;
  /** The unit of value and threshold: `events`, `percent` or `ms`. */
  unit: string | null;
  window: string | null;
  /** `new` or `regressed` for issue rules. */
  transition: string | null;
  /** One readable line. */
  text: string;
}

/** A Slack incoming-webhook body: the text line plus a block with title, culprit, count and link. */
export function slackMessage(payload: AlertPayload): Record<string, unknown> {
  const icon = payload.state === 'resolved' ? ':white_check_mark:' : payload.state === 'test' ? ':information_source:' : ':rotating_light:';
  const lines = [`${icon} *${escapeSlack(payload.text)}*`];
  if (payload.issue) {
    lines.push(`<${payload.issue.permalink}|${escapeSlack(payload.issue.title)}>`);
    if (payload.issue.culprit) lines.push(`in \`${escapeSlack(payload.issue.culprit)}\``);
    lines.push(`${payload.issue.count} event${payload.issue.count === 1 ? '' : 's'} · ${payload.issue.status}`);
  }
  lines.push(`Project ${escapeSlack(payload.project.name)} · rule “${escapeSlack(payload.rule.name)}”`);
  return {
    text: payload.text,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } }],
  };
}

function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The text line of a notification. */
export function describe(payload: Omit<AlertPayload, 'text'>): string {
  const rule = `[${payload.project.name}] ${payload.rule.name}`;
  if (payload.state === 'test') return `${rule}: test notification`;
  if (payload.state === 'resolved' && payload.issue) return `${rule}: resolved ${payload.issue.title}`;
  switch (payload.rule.type) {
    case 'new_issue':
      return `${rule}: new issue ${payload.issue?.title ?? ''}`.trim();
    case 'regression':
      return `${rule}: regression of ${payload.issue?.title ?? 'an issue'}`;
    default: {
      const measured = `${formatNumber(payload.value)} ${payload.unit ?? ''} against ${formatNumber(payload.threshold)} ${payload.unit ?? ''} over ${payload.window}`;
      return payload.state === 'resolved' ? `${rule}: resolved (${measured})` : `${rule}: firing (${measured})`;
    }
  }
}

function formatNumber(value: number | null): string {
  return value === null ? '-' : String(Math.round(value * 100) / 100);
}
