// The email of a notification: an alert (from its webhook payload, src/records/alert-payload.ts)
// or an assignment notice. Every message has a subject, a plain-text part and an HTML part; all
// sender-controlled text in the HTML is escaped, and the subject is one line.
import type { AlertPayload } from './alert-payload.js';

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** What the outbox stores for an assignment notice (the delivery's payload). */
export interface AssignmentPayload {
  kind: 'assignment';
  id: string;
  issue: { id: string; title: string; culprit: string | null; count: number; status: string; permalink: string };
  project: { id: string; name: string };
  assignee: { email: string };
  /** Who assigned it: a web user's email, or `API key <id>`. */
  by: string;
  assigned_at: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const html = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
/** One line of at most 200 characters: control characters become spaces (a header cannot be split). */
const oneLine = (text: string) =>
  Array.from(text.slice(0, 400), (c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? ' ' : c))
    .join('')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, 200);
const events = (count: number) => `${count} event${count === 1 ? '' : 's'}`;

type Issue = NonNullable<AlertPayload['issue']>;

function issueParts(issue: Issue): { text: string[]; html: string[] } {
  const facts = `${events(issue.count)} · ${issue.status}`;
  return {
    text: [issue.title, ...(issue.culprit ? [`in ${issue.culprit}`] : []), facts, '', `Open the issue: ${issue.permalink}`],
    html: [
      `<h2 style="margin:0 0 8px"><a href="${html(issue.permalink)}">${html(issue.title)}</a></h2>`,
      ...(issue.culprit ? [`<p style="margin:0 0 8px">in <code>${html(issue.culprit)}</code></p>`] : []),
      `<p style="margin:0 0 8px">${html(facts)}</p>`,
      `<p style="margin:16px 0"><a href="${html(issue.permalink)}">Open the issue</a></p>`,
    ],
  };
}

function document(title: string, body: string[]): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${html(title)}</title></head><body style="font-family:sans-serif">${body.join('')}</body></html>`;
}

export function alertEmail(payload: AlertPayload): EmailContent {
  const subject = oneLine(payload.text);
  const text: string[] = [payload.text, ''];
  const body: string[] = [`<p style="margin:0 0 16px"><strong>${html(payload.text)}</strong></p>`];
  if (payload.issue) {
    const parts = issueParts(payload.issue);
    text.push(...parts.text, '');
    body.push(...parts.html);
  }
  if (payload.value !== null) {
    const measured = `Measured ${payload.value} ${payload.unit ?? ''} against ${payload.threshold ?? '-'} ${payload.unit ?? ''} over ${payload.window ?? '-'}`;
    text.push(measured, '');
    body.push(`<p>${html(measured)}</p>`);
  }
  const footer = `Project ${payload.project.name} · rule “${payload.rule.name}” · ${payload.state} at ${payload.fired_at}`;
  text.push(footer);
  body.push(`<p style="color:#666;font-size:12px">${html(footer)}</p>`);
  return { subject, text: `${text.join('\n')}\n`, html: document(subject, body) };
}

export function assignmentEmail(payload: AssignmentPayload): EmailContent {
  const subject = oneLine(`[${payload.project.name}] ${payload.by} assigned you: ${payload.issue.title}`);
  const parts = issueParts(payload.issue);
  const lead = `${payload.by} assigned you an issue of ${payload.project.name}.`;
  return {
    subject,
    text: `${[lead, '', ...parts.text].join('\n')}\n`,
    html: document(subject, [`<p style="margin:0 0 16px">${html(lead)}</p>`, ...parts.html]),
  };
}

/** The email of a stored notification payload (either kind). */
export function notificationEmail(payload: AlertPayload | AssignmentPayload): EmailContent {
  return 'kind' in payload && payload.kind === 'assignment' ? assignmentEmail(payload) : alertEmail(payload as AlertPayload);
}
