// Offboarding in a real browser (Debian's Chromium, driven by playwright-core): an admin follows
// the Users link, invites a person, who opens the one-time link in their own browser, chooses a
// password and is signed in; the admin disables them on the page and their next click lands on
// sign-in; enabled again, they sign in, and `faultline users delete` ends that session too.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserBinary } from '../support/browsers.js';
import { childEnv, runCli } from '../support/process.js';
import { startService, type TestService } from '../support/service.js';
import { createUser } from '../support/web.js';

let svc: TestService;
let browser: Browser;
let password: string;

beforeAll(async () => {
  const executablePath = browserBinary('chromium');
  [svc, browser] = await Promise.all([startService(), chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })]);
  password = await createUser(svc, 'lead@example.com', 'admin');
});

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

async function signIn(page: Page, email: string, pw: string): Promise<void> {
  await page.goto(`${svc.baseUrl}/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(pw);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/issues');
}

describe('users in Chromium', () => {
  it('invites through a one-time link, and disabling or deleting ends the session at once', async () => {
    const adminContext = await browser.newContext();
    const admin = await adminContext.newPage();
    await signIn(admin, 'lead@example.com', password);
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.waitForURL('**/users');
    await admin.getByLabel('Email').fill('joiner@example.com');
    await admin.getByRole('button', { name: 'Invite' }).click();
    const link = (await admin.locator('code.secret').textContent()) ?? '';
    expect(link).toMatch(/^http:\/\/faultline\.test\/signin\/link\/[\w-]+$/);

    // The invitee, in a browser of their own.
    const joinerContext = await browser.newContext();
    const joiner = await joinerContext.newPage();
    await joiner.goto(link.replace('http://faultline.test', svc.baseUrl));
    await joiner.getByLabel('New password').fill('joiner-password-1');
    await joiner.getByLabel('The same again').fill('joiner-password-1');
    await joiner.getByRole('button', { name: 'Set password and sign in' }).click();
    await joiner.waitForURL('**/issues');
    expect(await joiner.locator('.who').textContent()).toContain('joiner@example.com');
    // A member: no Users link.
    expect(await joiner.getByRole('link', { name: 'Users' }).count()).toBe(0);

    // The admin disables them; the joiner's next page is the sign-in page.
    await admin.getByRole('button', { name: 'Disable joiner@example.com' }).click();
    await expect.poll(() => admin.locator('p.notice').textContent()).toContain('Disabled joiner@example.com');
    await joiner.reload();
    expect(new URL(joiner.url()).pathname).toBe('/signin');

    await admin.getByRole('button', { name: 'Enable joiner@example.com' }).click();
    await expect.poll(() => admin.locator('p.notice').textContent()).toContain('Enabled joiner@example.com');
    await signIn(joiner, 'joiner@example.com', 'joiner-password-1');

    // Deleted from the CLI: by the time it returns, the session is over.
    const run = await runCli(['users', 'delete', 'joiner@example.com'], childEnv(svc.dataDir));
    expect(run.code, run.stderr).toBe(0);
    await joiner.reload();
    expect(new URL(joiner.url()).pathname).toBe('/signin');
    await adminContext.close();
    await joinerContext.close();
  }, 180_000);
});
