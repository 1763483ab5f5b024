// Email end to end: the real service with service.smtp pointing at a real SMTP server on loopback
// (smtp-server, with a login, the password from the environment), alert rules with an email action
// over HTTP, events over HTTP; the message's recipients, subject, links and both parts; retries
// through the outbox when the server refuses for now; assignment notices.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertingYaml, createRule, errorEvent, ruleUntil, type RuleView } from '../support/alerts.js';
import { expectError } from '../support/http.js';
import { startService, type TestService } from '../support/service.js';
import { decodeHeader, header, startSmtp, textParts, type ReceivedMail, type SmtpSink } from '../support/smtp.js';
import { createUser } from '../support/web.js';
import { catalogOf } from '../../extensions/catalog/index.js';

const login = { user: 'faultline', password: 'smtp-s3cret' };
let svc: TestService;
let smtp: SmtpSink;

beforeAll(async () => {
  smtp = await startSmtp(login);
  svc = await startService({
    yaml: alertingYaml(),
    env: {
      FAULTLINE_SMTP_HOST: '127.0.0.1',
      FAULTLINE_SMTP_PORT: String(smtp.port),
      FAULTLINE_SMTP_TLS: 'none',
      FAULTLINE_SMTP_USER: login.user,
      FAULTLINE_SMTP_PASSWORD: login.password,
      FAULTLINE_SMTP_FROM: 'Faultline <alerts@faultline.test>',
    },
  });
});
afterAll(async () => {
  await svc.stop();
  await smtp.close();
});

async function postEvent(body: Record<string, unknown>): Promise<{ id: string; permalink: string }> {
  const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return (await res.json()) as { id: string; permalink: string };
}

const subjectOf = (mail: ReceivedMail) => decodeHeader(header(mail.raw, 'subject') ?? '');

describe('email actions', () => {
  it('are validated: recipients listed, capped and real addresses', async () => {
    const rule = (action: Record<string, unknown>) =>
      svc.api('/v1/alerts', { method: 'POST', body: JSON.stringify({ project_id: 'default', name: 'Mail', type: 'new_issue', actions: [action] }) });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'email' }, 'actions[0].to'],
      [{ type: 'email', to: [] }, 'actions[0].to'],
      [{ type: 'email', to: Array.from({ length: 21 }, (_, i) => `dev${i}@example.com`) }, 'actions[0].to'],
      [{ type: 'email', to: ['ada@example.com', 'not an address'] }, 'actions[0].to[1]'],
      [{ type: 'email', to: ['Ada <ada@example.com>'] }, 'actions[0].to[0]'],
      [{ type: 'email', to: [`${'a'.repeat(250)}@example.com`] }, 'actions[0].to[0]'],
      [{ type: 'email', to: ['ada@example.com'], url: 'http://x' }, 'actions[0].url'],
    ];
    for (const [action, path] of cases) {
      const body = await expectError(await rule(action), 400, 'validation_failed');
      expect(body.error.details.map((d) => d.path)).toContain(path);
    }
  });

  it('send the alert to every recipient with subject, permalink, a plain-text and an escaped HTML part', async () => {
    const created = await createRule(svc, {
      name: 'Mail new issues',
      type: 'new_issue',
      actions: [{ type: 'email', to: ['Ada@Example.com', 'grace@example.com', 'ada@example.com'] }],
    });
    expect((created as RuleView & { actions: unknown }).actions).toEqual([{ type: 'email', to: ['ada@example.com', 'grace@example.com'] }]);
    const ack = await postEvent(errorEvent({}, 'MailCheckoutError'));
    const value = 'cart total is undefined';
    const [mail] = await smtp.waitFor(1, (m) => subjectOf(m).includes('MailCheckoutError'));
    expect(mail.to.sort()).toEqual(['ada@example.com', 'grace@example.com']);
    expect(mail.from).toBe('alerts@faultline.test');
    expect(subjectOf(mail)).toBe(`[Default project] Mail new issues: new issue MailCheckoutError: ${value}`);
    const parts = textParts(mail.raw);
    expect(Object.keys(parts).sort()).toEqual(['text/html', 'text/plain']);
    expect(parts['text/plain']).toContain(`Open the issue: ${ack.permalink}`);
    expect(parts['text/plain']).toContain('1 event · unresolved');
    expect(parts['text/html']).toContain(`<a href="${ack.permalink}">Open the issue</a>`);
    expect(header(mail.raw, 'message-id')).toMatch(/^<[0-9a-f]+-0@faultline>$/);
  });

  it('escape what the sender wrote in the HTML part and keep the subject on one line', async () => {
    await createRule(svc, { name: 'Mail hostile', type: 'new_issue', environment: 'hostile', actions: [{ type: 'email', to: ['sec@example.com'] }] });
    await postEvent(
      errorEvent({ environment: 'hostile', exception: { type: 'XssError', value: '<img src=x onerror=alert(1)> & "q"\r\nBcc: evil@example.com' } }),
    );
    const [mail] = await smtp.waitFor(1, (m) => m.to.includes('sec@example.com'));
    expect(mail.to).toEqual(['sec@example.com']);
    expect(header(mail.raw, 'bcc')).toBeUndefined();
    expect(subjectOf(mail)).not.toMatch(/[\r\n]/);
    const html = textParts(mail.raw)['text/html'];
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot;');
    expect(html).not.toContain('<img');
    expect(textParts(mail.raw)['text/plain']).toContain('<img src=x onerror=alert(1)>');
  });

  it('retry through the outbox while the server refuses for now (451), with the same Message-ID, and stop on a refusal (550)', async () => {
    smtp.refuseNext('ops@example.com', 451, 451);
    const rule = await createRule(svc, {
      name: 'Mail retried',
      type: 'new_issue',
      environment: 'retry',
      actions: [{ type: 'email', to: ['ops@example.com'] }],
    });
    await postEvent(errorEvent({ environment: 'retry' }, 'MailRetryError'));
    const [mail] = await smtp.waitFor(1, (m) => m.to.includes('ops@example.com'));
    expect(subjectOf(mail)).toContain('MailRetryError');
    const tries = smtp.refused.filter((m) => m.to.includes('ops@example.com'));
    expect(tries).toHaveLength(2);
    for (const earlier of tries) expect(header(earlier.raw, 'message-id')).toBe(header(mail.raw, 'message-id'));
    const delivered = await ruleUntil(svc, rule.id, (r) => r.firings[0]?.deliveries[0]?.status === 'delivered');
    expect(delivered.firings[0].deliveries[0]).toMatchObject({ type: 'email', attempts: 3, last_error: 'smtp_451' });

    smtp.refuseNext('gone@example.com', 550);
    const refused = await createRule(svc, {
      name: 'Mail refused',
      type: 'new_issue',
      environment: 'refused',
      actions: [{ type: 'email', to: ['gone@example.com'] }],
    });
    await postEvent(errorEvent({ environment: 'refused' }, 'MailRefusedError'));
    const failed: RuleView = await ruleUntil(svc, refused.id, (r) => r.firings[0]?.deliveries[0]?.status === 'failed');
    expect(failed.firings[0].deliveries[0]).toMatchObject({ attempts: 1, last_error: 'smtp_550' });
    expect(smtp.messages.filter((m) => m.to.includes('gone@example.com'))).toHaveLength(0);
  });
});

describe('assignment notices', () => {
  it('email the assignee with the issue, unless they assigned it to themselves', async () => {
    await createUser(svc, 'lin@example.com', 'member');
    const ack = await postEvent(errorEvent({}, 'AssignedError'));
    const id = ack.permalink.slice(ack.permalink.lastIndexOf('/') + 1);
    const res = await svc.api(`/v1/issues/${id}`, { method: 'PATCH', body: JSON.stringify({ assignee: 'lin@example.com' }) });
    expect(res.status, await res.text()).toBe(200);
    const [mail] = await smtp.waitFor(1, (m) => m.to.includes('lin@example.com'));
    expect(subjectOf(mail)).toMatch(/^\[Default project\] API key \S+ assigned you: AssignedError: /);
    const parts = textParts(mail.raw);
    expect(parts['text/plain']).toContain(`Open the issue: ${ack.permalink}`);
    expect(parts['text/html']).toContain(`href="${ack.permalink}"`);

    // A person assigning themselves is told nothing; assigning someone else tells that one.
    const triage = svc.service.storage!.triage;
    const issue = (await svc.service.storage!.issues.get('live', ['default'], id))!;
    const lin = await userOf(svc, 'lin@example.com');
    await createUser(svc, 'mo@example.com', 'member');
    const mo = await userOf(svc, 'mo@example.com');
    const reread = async () => [(await svc.service.storage!.issues.get('live', ['default'], id))!];
    await triage.apply('live', [issue], { assignee: mo }, { kind: 'user', id: mo.id, email: mo.email }, reread);
    await triage.apply('live', [(await reread())[0]], { assignee: lin }, { kind: 'user', id: mo.id, email: mo.email }, reread);
    const [second] = await smtp.waitFor(2, (m) => m.to.includes('lin@example.com')).then((all) => all.slice(1));
    expect(subjectOf(second)).toMatch(/^\[Default project\] mo@example\.com assigned you: /);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.messages.filter((m) => m.to.includes('mo@example.com'))).toHaveLength(0);
  });
});

describe('without SMTP', () => {
  it('refuses a rule with an email action, saying SMTP is not configured', async () => {
    const bare = await startService({ yaml: alertingYaml() });
    try {
      const res = await bare.api('/v1/alerts', {
        method: 'POST',
        body: JSON.stringify({
          project_id: 'default',
          name: 'Mail',
          type: 'new_issue',
          actions: [{ type: 'log' }, { type: 'email', to: ['ada@example.com'] }],
        }),
      });
      const body = await expectError(res, 400, 'validation_failed');
      expect(body.error.details).toEqual([{ path: 'actions[1]', message: expect.stringContaining('SMTP is not configured') }]);
      expect(body.error.message).toContain('SMTP is not configured');
    } finally {
      await bare.stop();
    }
  });
});

async function userOf(target: TestService, email: string): Promise<{ id: string; email: string }> {
  const org = await catalogOf(target.service.host).defaultOrganization();
  const user = await target.service.storage?.triage.assignableUser(org.id, email);
  if (!user) throw new Error(`no web user ${email}`);
  return user;
}
