// "Ignore until" on the issue page in a real browser (Debian's Chromium, driven by playwright-core):
// a member picks "100 more events", the page shows what the issue waits for and the API agrees;
// unresolved again, they pick a time instead; a time in the past is refused on an error page.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEvent } from '../support/alerts.js';
import { launchChromium } from '../support/browsers.js';
import { startService, type TestService } from '../support/service.js';
import { createUser } from '../support/web.js';

let svc: TestService;
let browser: Browser | undefined;
let password = '';

beforeAll(async () => {
  svc = await startService();
  [browser, password] = await Promise.all([launchChromium(), createUser(svc, 'triager@example.com', 'member')]);
});
afterAll(() => Promise.all([browser?.close(), svc?.stop()]));

async function signIn(page: Page): Promise<void> {
  await page.goto(`${svc.baseUrl}/signin`);
  await page.getByLabel('Email').fill('triager@example.com');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/issues');
}

async function ignoreUntilOf(id: string): Promise<{ status: string; ignore_until: Record<string, unknown> | null }> {
  return (await (await svc.api(`/v1/issues/${id}`)).json()) as { status: string; ignore_until: Record<string, unknown> | null };
}

describe('ignore until on the issue page', () => {
  it('offers the choices and shows what an ignored issue waits for', async () => {
    const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(errorEvent({}, 'PageIgnoreError')) });
    const { permalink } = (await res.json()) as { permalink: string };
    const id = permalink.slice(permalink.lastIndexOf('/') + 1);
    const page = await browser!.newPage();
    try {
      await signIn(page);
      await page.goto(`${svc.baseUrl}/issues/${id}`);
      await page.getByLabel('Ignore until').selectOption({ label: '100 more events' });
      await page.getByRole('button', { name: 'Ignore until' }).click();
      await page.waitForURL(`**/issues/${id}?changed=1`);
      expect(await page.locator('#issue-status').textContent()).toBe('ignored');
      expect(await page.locator('#ignored-until').textContent()).toMatch(/until 100 more events \(counted from .+\)/);
      expect((await ignoreUntilOf(id)).ignore_until).toMatchObject({ count: 100 });
      expect(await page.getByRole('button', { name: 'Ignore until' }).count()).toBe(0);

      await page.getByRole('button', { name: 'Unresolve' }).click();
      await page.waitForURL(`**/issues/${id}?changed=1`);
      const later = new Date(Date.now() + 2 * 24 * 60 * 60_000);
      const local = later.toISOString().slice(0, 16);
      await page.getByLabel('or until (UTC)').fill(local);
      await page.getByRole('button', { name: 'Ignore until' }).click();
      await page.waitForURL(`**/issues/${id}?changed=1`);
      expect(await page.locator('#ignored-until time').getAttribute('datetime')).toBe(`${local}:00.000Z`);
      expect((await ignoreUntilOf(id)).ignore_until).toMatchObject({ until: `${local}:00.000Z` });

      await page.getByRole('button', { name: 'Unresolve' }).click();
      await page.waitForURL(`**/issues/${id}?changed=1`);
      await page.getByLabel('or until (UTC)').fill('2020-01-01T09:00');
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/ignore')),
        page.getByRole('button', { name: 'Ignore until' }).click(),
      ]);
      expect(refused.status()).toBe(400);
      expect(await page.textContent('body')).toContain('must be in the future');
      expect((await ignoreUntilOf(id)).status).toBe('unresolved');
    } finally {
      await page.close();
    }
  });
});
