// One attempt of an email delivery: the notification's message (src/records/notification-email.ts)
// through the service's SMTP server. Every attempt carries the same Message-ID (from the
// delivery's id), so a mail client can tell a retry's copy from a new alert.
import type { Mailer } from '../../src/net/mailer.js';
import type { AlertPayload } from '../../src/records/alert-payload.js';
import { notificationEmail, type AssignmentPayload } from '../../src/records/notification-email.js';
import type { AttemptResult } from './send.js';

export async function sendEmail(to: string[], payloadText: string, deliveryId: string, mailer: Mailer | undefined): Promise<AttemptResult> {
  if (!mailer) return { ok: false, error: 'refused', retry: false, detail: 'SMTP is not configured (service.smtp.host)' };
  const content = notificationEmail(JSON.parse(payloadText) as AlertPayload | AssignmentPayload);
  const result = await mailer.send({ to, ...content, messageId: `<${deliveryId}@faultline>` });
  return result.ok ? result : { ok: false, error: result.error, retry: result.retry, detail: result.detail };
}
