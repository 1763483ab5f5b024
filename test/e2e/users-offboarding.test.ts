// Offboarding (issue 23, item 7): `faultline users list | disable | enable | delete |
// reset-password` against the running service, each ending the user's sessions before the command
// returns; and the admins' users page (invite with a one-time link, disable, enable, delete, reset),
// which members cannot reach, with the CSRF and origin checks of every form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, runCli } from '../support/process.js';
import { startService, type TestService } from '../support/service.js';
import { createUser, WebClient } from '../support/web.js';

let svc: TestService;
let adminPassword: string;

beforeAll(async () => {
  svc = await startService();
  adminPassword = await createUser(svc, 'boss@example.com', 'admin');
});

afterAll(async () => {
  await svc?.stop();
});

const cli = (args: string[]) => runCli(['users', ...args], childEnv(svc.dataDir, { FAULTLINE_APP_URL: 'http://faultline.test' }));

async function signedIn(email: string, password: string): Promise<WebClient> {
  const browser = new WebClient(svc.baseUrl);
  expect((await browser.signIn(email, password)).status).toBe(303);
  expect((await browser.fetch('/issues')).status).toBe(200);
  return browser;
}

/** The session cookie alone, replayed as a browser would. */
async function withCookie(browser: WebClient, path = '/issues'): Promise<Response> {
  return fetch(`${svc.baseUrl}${path}`, { headers: { cookie: `fl_session=${browser.cookies.get('fl_session')}`, accept: 'text/html' }, redirect: 'manual' });
}

function expectSignedOut(res: Response): void {
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toMatch(/^\/signin/);
}

async function signInStatus(email: string, password: string): Promise<number> {
  return (await new WebClient(svc.baseUrl).signIn(email, password)).status;
}

describe('faultline users', () => {
  it('lists, disables (ending the sessions at once), enables and deletes a user', async () => {
    const password = await createUser(svc, 'leaver@example.com', 'member');
    const session = await signedIn('leaver@example.com', password);

    const listed = await cli(['list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/leaver@example\.com\s+member\s+enabled/);

    const disabled = await cli(['disable', 'leaver@example.com']);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stdout).toContain('Disabled leaver@example.com');
    // Right after the command returns: the browser's session is gone, and so is sign-in.
    expectSignedOut(await withCookie(session));
    expect((await fetch(`${svc.baseUrl}/replays/x/segments/0`, { headers: { cookie: `fl_session=${session.cookies.get('fl_session')}` } })).status).toBe(401);
    expect(await signInStatus('leaver@example.com', password)).toBe(401);
    expect((await cli(['list'])).stdout).toMatch(/leaver@example\.com\s+member\s+disabled/);
    expect((await cli(['disable', 'leaver@example.com'])).stderr).toContain('disabled already');

    const userId = /(usr_\w+)/.exec((await cli(['list'])).stdout.split('\n').find((l) => l.includes('leaver@')) ?? '')?.[1];
    expect(userId).toBeDefined();
    expect((await cli(['enable', userId!])).code).toBe(0);
    // Enabled again: the password works, the ended session stays ended.
    expectSignedOut(await withCookie(session));
    const again = await signedIn('leaver@example.com', password);

    const deleted = await cli(['delete', 'leaver@example.com']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expectSignedOut(await withCookie(again));
    expect((await cli(['list'])).stdout).not.toContain('leaver@example.com');
    expect(await signInStatus('leaver@example.com', password)).toBe(401);
    expect((await cli(['delete', 'leaver@example.com'])).stderr).toContain('no user leaver@example.com');
  }, 120_000);

  it('resets a password: the old one and its sessions stop working, the new one (printed once) signs in', async () => {
    const password = await createUser(svc, 'forgetful@example.com', 'member');
    const session = await signedIn('forgetful@example.com', password);
    const reset = await cli(['reset-password', 'forgetful@example.com']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain('their sessions ended');
    const fresh = reset.stdout.trimEnd().split('\n').at(-1) as string;
    expect(fresh).not.toBe(password);
    expectSignedOut(await withCookie(session));
    expect(await signInStatus('forgetful@example.com', password)).toBe(401);
    expect(await signInStatus('forgetful@example.com', fresh)).toBe(303);
  }, 120_000);

  it('keeps the last enabled admin', async () => {
    const refused = await cli(['disable', 'boss@example.com']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('last enabled admin');
    expect(await signInStatus('boss@example.com', adminPassword)).toBe(303);
  }, 60_000);
});

describe('the users page', () => {
  it('lets an admin invite a user with a one-time link, then disable, enable, reset and delete them', async () => {
    const admin = await signedIn('boss@example.com', adminPassword);
    const page = await (await admin.fetch('/users')).text();
    expect(page).toContain('href="/users"');
    expect(page).toContain('boss@example.com');
    const csrf = WebClient.csrfOf(page);

    const invited = await admin.post('/users', { _csrf: csrf, email: 'newcomer@example.com', role: 'member' });
    expect(invited.status).toBe(200);
    const link = /http:\/\/faultline\.test(\/signin\/link\/[A-Za-z0-9_-]+)/.exec(await invited.text())?.[1];
    expect(link).toBeDefined();

    // The newcomer opens the link, chooses a password and is signed in.
    const newcomer = new WebClient(svc.baseUrl);
    const form = await newcomer.fetch(link!);
    expect(form.status).toBe(200);
    const formHtml = await form.text();
    expect(formHtml).toContain('newcomer@example.com');
    const mismatch = await newcomer.post(link!, { _csrf: WebClient.csrfOf(formHtml), password: 'first-password-1', confirm: 'other' });
    expect(mismatch.status).toBe(400);
    const chosen = await newcomer.post(link!, { _csrf: WebClient.csrfOf(await mismatch.text()), password: 'first-password-1', confirm: 'first-password-1' });
    expect(chosen.status).toBe(303);
    expect(chosen.headers.get('location')).toBe('/issues');
    expect((await newcomer.fetch('/issues')).status).toBe(200);
    // The link works once.
    expect((await new WebClient(svc.baseUrl).fetch(link!)).status).toBe(404);

    const users = await (await admin.fetch('/users')).text();
    // The row of the newcomer: its actions follow its email.
    const userId = /\/users\/(usr_\w+)\/disable/.exec(users.slice(users.indexOf('<td>newcomer@example.com</td>')))?.[1];
    expect(userId).toBeDefined();

    const disabled = await admin.post(`/users/${userId}/disable`, { _csrf: csrf });
    expect(disabled.status).toBe(200);
    expect(await disabled.text()).toContain('Disabled newcomer@example.com');
    expectSignedOut(await withCookie(newcomer));
    expect(await signInStatus('newcomer@example.com', 'first-password-1')).toBe(401);

    expect((await admin.post(`/users/${userId}/enable`, { _csrf: csrf })).status).toBe(200);
    const back = await signedIn('newcomer@example.com', 'first-password-1');

    const reset = await admin.post(`/users/${userId}/reset`, { _csrf: csrf });
    expect(reset.status).toBe(200);
    const resetLink = /http:\/\/faultline\.test(\/signin\/link\/[A-Za-z0-9_-]+)/.exec(await reset.text())?.[1];
    expect(resetLink).toBeDefined();
    expectSignedOut(await withCookie(back));
    expect(await signInStatus('newcomer@example.com', 'first-password-1')).toBe(401);
    const resetter = new WebClient(svc.baseUrl);
    const resetForm = await (await resetter.fetch(resetLink!)).text();
    expect((await resetter.post(resetLink!, { _csrf: WebClient.csrfOf(resetForm), password: 'second-password-2', confirm: 'second-password-2' })).status).toBe(
      303,
    );

    const deleted = await admin.post(`/users/${userId}/delete`, { _csrf: csrf });
    expect(deleted.status).toBe(200);
    expect(await deleted.text()).not.toContain('<td>newcomer@example.com</td>');
    expectSignedOut(await withCookie(resetter));
  }, 180_000);

  it('is out of reach of members, and of forms without the CSRF token or from another origin', async () => {
    const memberPassword = await createUser(svc, 'plain@example.com', 'member');
    const member = await signedIn('plain@example.com', memberPassword);
    const memberPage = await member.fetch('/users');
    expect(memberPage.status).toBe(403);
    const issues = await (await member.fetch('/issues')).text();
    expect(issues).not.toContain('href="/users"');
    const memberCsrf = WebClient.csrfOf(issues);
    const admin = await signedIn('boss@example.com', adminPassword);
    const adminPage = await (await admin.fetch('/users')).text();
    const bossId = /(usr_\w+)/.exec(adminPage.slice(adminPage.indexOf('boss@example.com')))?.[1];
    const plainId = /(usr_\w+)/.exec(adminPage.slice(adminPage.indexOf('plain@example.com')))?.[1];
    expect(bossId && plainId).toBeTruthy();

    for (const action of ['disable', 'delete', 'reset']) expect((await member.post(`/users/${bossId}/${action}`, { _csrf: memberCsrf })).status).toBe(403);
    expect((await member.post('/users', { _csrf: memberCsrf, email: 'sneaky@example.com', role: 'admin' })).status).toBe(403);
    // The admin's own form, without its token or posted from elsewhere.
    expect((await admin.post(`/users/${plainId}/disable`, {})).status).toBe(403);
    expect((await admin.post(`/users/${plainId}/disable`, { _csrf: WebClient.csrfOf(adminPage) }, { origin: 'https://evil.example' })).status).toBe(403);
    // Nothing of it happened.
    expect(await signInStatus('boss@example.com', adminPassword)).toBe(303);
    expect((await member.fetch('/issues')).status).toBe(200);
    expect((await cli(['list'])).stdout).not.toContain('sneaky@example.com');
    // Without a session: the sign-in page, or 403 for a form.
    expectSignedOut(await fetch(`${svc.baseUrl}/users`, { redirect: 'manual', headers: { accept: 'text/html' } }));
    expect((await fetch(`${svc.baseUrl}/users/${plainId}/delete`, { method: 'POST', redirect: 'manual' })).status).toBe(403);
  }, 120_000);
});
