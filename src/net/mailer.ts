// Outbound email through the SMTP server of `service.smtp` (nodemailer as the client). What one
// attempt reports is one of the words webhook deliveries use — refused, timeout, unreachable — or
// `smtp_<code>` with the server's reply code (as `http_<status>` for a webhook); the server's own
// text goes to the service log only.
import { createTransport, type Transporter } from 'nodemailer';
import type { SmtpSettings } from '../config/service-schema.js';

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** The same on every attempt of one notification. */
  messageId?: string;
}

export type MailResult = { ok: true } | { ok: false; error: 'refused' | 'timeout' | 'unreachable' | `smtp_${number}`; retry: boolean; detail: string };

/** Codes nodemailer gives a failure before or around the conversation (see its errors.js). */
const TIMEOUT_CODES = new Set(['ETIMEDOUT']);
const CONNECTION_CODES = new Set(['ECONNECTION', 'ESOCKET', 'EDNS', 'ETLS', 'ECONNREFUSED', 'ECONNRESET', 'EPROTOCOL']);

export class Mailer {
  private readonly transport: Transporter;
  readonly from: string;

  constructor(settings: SmtpSettings, appUrl: string, timeouts: { connectMs: number; totalMs: number } = { connectMs: 3_000, totalMs: 10_000 }) {
    this.from = settings.from || `faultline@${hostOf(appUrl)}`;
    this.transport = createTransport({
      host: settings.host,
      port: settings.port,
      secure: settings.tls === 'tls',
      requireTLS: settings.tls === 'starttls',
      ignoreTLS: settings.tls === 'none',
      auth: settings.user ? { user: settings.user, pass: settings.password } : undefined,
      connectionTimeout: timeouts.connectMs,
      greetingTimeout: timeouts.connectMs,
      socketTimeout: timeouts.totalMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  async send(message: MailMessage): Promise<MailResult> {
    try {
      await this.transport.sendMail({ from: this.from, ...message });
      return { ok: true };
    } catch (error) {
      return classify(error);
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** A Mailer when service.smtp names a host, else undefined (email is off). */
export function mailerOf(settings: SmtpSettings, appUrl: string): Mailer | undefined {
  return settings.host.trim() === '' ? undefined : new Mailer(settings, appUrl);
}

function classify(error: unknown): MailResult & { ok: false } {
  const { code, responseCode, message } = (error ?? {}) as { code?: string; responseCode?: number; message?: string };
  const detail = message || String(error);
  // The server answered: 4xx is "try again later", 5xx is a refusal that another try will not change.
  if (typeof responseCode === 'number' && responseCode >= 400 && responseCode < 600)
    return { ok: false, error: `smtp_${responseCode}`, retry: responseCode < 500, detail };
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { ok: false, error: 'timeout', retry: true, detail };
  if (code !== undefined && CONNECTION_CODES.has(code)) return { ok: false, error: 'unreachable', retry: true, detail };
  // Refused before sending (bad envelope, authentication not possible): another try fails the same way.
  return { ok: false, error: 'refused', retry: false, detail };
}

function hostOf(appUrl: string): string {
  try {
    return new URL(appUrl).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}
