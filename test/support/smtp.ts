// A real SMTP server on 127.0.0.1 for the email tests (the `smtp-server` package): it checks the
// login it is given, records every message (envelope and raw MIME), and refuses the next messages
// with the replies it is told to; plus a small MIME reader for the parts nodemailer writes.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitForRecorded } from './receiver.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpSink {
  port: number;
  messages: ReceivedMail[];
  /** Replies (e.g. 451, 550) for the next messages to `to`, in order; after them every message is accepted. */
  refuseNext(to: string, ...codes: number[]): void;
  /** Messages refused so far (as they came). */
  refused: ReceivedMail[];
  waitFor(count: number, filter?: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtp(login?: { user: string; password: string }): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const refusals = new Map<string, number[]>();
  const waiters = new Set<() => void>();
  const refused: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: login ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !login,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (login && auth.username === login.user && auth.password === login.password) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const mail = { from, to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') };
        const code = session.envelope.rcptTo.map((r) => refusals.get(r.address)?.shift()).find((c) => c !== undefined);
        if (code !== undefined) {
          refused.push(mail);
          callback(Object.assign(new Error(code < 500 ? 'Try again later' : 'Mailbox unavailable'), { responseCode: code }));
          return;
        }
        messages.push(mail);
        callback();
        for (const wake of waiters) wake();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    refuseNext: (to, ...codes) => refusals.set(to, [...(refusals.get(to) ?? []), ...codes]),
    refused,
    waitFor: (count, filter = () => true, timeoutMs = 15_000) => waitForRecorded(messages, waiters, count, filter, timeoutMs, 'messages'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A header of a raw message (unfolded; encoded words left as they are). */
export function header(raw: string, name: string): string | undefined {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** Decodes an RFC 2047 encoded-word header value (=?UTF-8?Q?…?= or =?UTF-8?B?…?=). */
export function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
      encoding.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(decodeQuotedPrintable(text.replace(/_/g, ' ')), 'latin1').toString('utf8'),
    );
}

function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The decoded body of each text/* part, by content type (text/plain, text/html). */
export function textParts(raw: string): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const section of raw.split(/\r\n--[^\r\n]+/)) {
    const split = section.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = section.slice(0, split);
    const type = /content-type:\s*(text\/[a-z]+)/i.exec(head)?.[1].toLowerCase();
    if (!type) continue;
    const encoding = /content-transfer-encoding:\s*([a-z0-9-]+)/i.exec(head)?.[1].toLowerCase();
    const body = section.slice(split + 4);
    parts[type] =
      encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : encoding === 'quoted-printable'
          ? Buffer.from(decodeQuotedPrintable(body), 'latin1').toString('utf8')
          : body;
  }
  return parts;
}
