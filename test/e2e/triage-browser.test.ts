// Triage in the web app, in a real browser (Debian's Chromium, driven by playwright-core): check
// issues on the list and assign or resolve them in bulk, search with the language (its errors shown
// under the box), filter by assignee, and assign from the issue page's picker. Every change is
// checked through the API as well. Screenshots are kept in test-results/web/.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { browserBinary } from '../support/browsers.js';
import { postJson } from '../support/http.js';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { createUser } from '../support/web.js';

const SHOTS = join(packageRoot, 'test-results', 'web');

let svc: TestService;
let browser: Browser;
let password: string;
const issues: Record<string, string> = {};

interface Issue {
  id: string;
  status: string;
  assignee: { email: string } | null;
}

const apiIssue = async (id: string) => (await (await svc.api(`/v1/issues/${id}`)).json()) as Issue;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const executablePath = browserBinary('chromium');
  [svc, browser] = await Promise.all([startService(), chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })]);
  password = await createUser(svc, 'lead@example.com', 'admin');
  await createUser(svc, 'dev@example.com', 'member');
  for (const name of ['Cart', 'Login', 'Search']) {
    const ack = await postJson(
      svc,
      '/v1/events',
      fullEvent({
        id: randomUUID(),
        timestamp: new Date().toISOString(),
        tags: { route: `/${name.toLowerCase()}` },
        exception: { type: `${name}Error`, value: `${name} broke`, stacktrace: [{ filename: `src/${name}.js`, function: name, lineno: 1, in_app: true }] },
      }),
    );
    issues[name] = String(ack.permalink).split('/').pop()!;
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

async function signedIn(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${svc.baseUrl}/issues`);
  await page.getByLabel('Email').fill('lead@example.com');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/issues');
  return page;
}

const row = (page: Page, name: string) => page.locator('table.issues tbody tr', { hasText: `${name}Error` });

describe('triage in Chromium', () => {
  it('assigns and resolves checked issues in bulk, and shows the assignee column', async () => {
    const page = await signedIn();
    expect(await page.locator('table.issues thead').textContent()).toContain('Assignee');
    await page.getByRole('checkbox', { name: 'Select CartError: Cart broke' }).check();
    await page.getByRole('checkbox', { name: 'Select LoginError: Login broke' }).check();
    await page.getByLabel('Assign to').selectOption('dev@example.com');
    await page.getByRole('button', { name: 'Assign', exact: true }).click();
    await expect.poll(() => page.locator('p.notice').textContent()).toBe('2 issues assigned.');
    expect(await row(page, 'Cart').locator('td.assignee').textContent()).toBe('dev@example.com');
    expect(await row(page, 'Search').locator('td.assignee').textContent()).toBe('—');
    expect((await apiIssue(issues.Cart)).assignee?.email).toBe('dev@example.com');
    expect((await apiIssue(issues.Login)).assignee?.email).toBe('dev@example.com');
    expect((await apiIssue(issues.Search)).assignee).toBeNull();

    await page.getByRole('checkbox', { name: 'Select SearchError: Search broke' }).check();
    await page.getByRole('button', { name: 'Resolve', exact: true }).click();
    await expect.poll(() => page.locator('p.notice').textContent()).toBe('1 issue changed.');
    expect((await apiIssue(issues.Search)).status).toBe('resolved');
    expect(await row(page, 'Search').count()).toBe(0); // the list shows unresolved issues
    await page.screenshot({ path: join(SHOTS, 'triage-bulk.png'), fullPage: true });
    await page.close();
  });

  it('searches with the language, filters by assignee, and shows a search error under the box', async () => {
    const page = await signedIn();
    await page.getByRole('searchbox', { name: 'Search' }).fill('route:/login');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('table.issues tbody tr').count()).toBe(1);
    expect(await row(page, 'Login').count()).toBe(1);

    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByLabel('Assignee').selectOption('none');
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('table.issues tbody tr').count()).toBe(1);
    expect(await row(page, 'Search').count()).toBe(1);

    await page.getByLabel('Assignee').selectOption('');
    await page.getByRole('searchbox', { name: 'Search' }).fill('is:resolved colour:red');
    await page.getByRole('button', { name: 'Apply' }).click();
    const error = page.locator('#query-error');
    await expect.poll(() => error.textContent()).toContain('unknown key colour');
    expect(await error.getAttribute('role')).toBe('alert');
    expect(await error.locator('mark').textContent()).toBe('colour:red');
    expect(await page.getByRole('searchbox', { name: 'Search' }).getAttribute('aria-invalid')).toBe('true');
    await page.screenshot({ path: join(SHOTS, 'triage-search-error.png'), fullPage: true });
    await page.close();
  });

  it('assigns from the issue page picker, and assigned:me finds it', async () => {
    const page = await signedIn();
    await page.goto(`${svc.baseUrl}/issues/${issues.Search}`);
    expect(await page.getByLabel('Assignee').inputValue()).toBe('');
    await page.getByLabel('Assignee').selectOption('lead@example.com');
    await page.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => page.locator('p.notice').textContent()).toBe('Assigned to lead@example.com.');
    expect(await page.getByLabel('Assignee').inputValue()).toBe('lead@example.com');
    expect((await apiIssue(issues.Search)).assignee?.email).toBe('lead@example.com');

    await page.goto(`${svc.baseUrl}/issues?status=&query=${encodeURIComponent('assigned:me')}`);
    await expect.poll(() => page.locator('table.issues tbody tr').count()).toBe(1);
    expect(await row(page, 'Search').count()).toBe(1);

    // Nobody: unassigned again.
    await page.goto(`${svc.baseUrl}/issues/${issues.Search}`);
    await page.getByLabel('Assignee').selectOption('');
    await page.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => page.locator('p.notice').textContent()).toBe('Assigned to nobody.');
    expect((await apiIssue(issues.Search)).assignee).toBeNull();

    // Nobody, in bulk from the list.
    await page.goto(`${svc.baseUrl}/issues`);
    await page.getByRole('checkbox', { name: 'Select LoginError: Login broke' }).check();
    await page.getByLabel('Assign to').selectOption('');
    await page.getByRole('button', { name: 'Assign', exact: true }).click();
    await expect.poll(() => page.locator('p.notice').textContent()).toBe('1 issue unassigned.');
    expect((await apiIssue(issues.Login)).assignee).toBeNull();
    expect((await apiIssue(issues.Cart)).assignee?.email).toBe('dev@example.com');
    await page.close();
  });
  it('merges checked issues in bulk into the one with the most events', async () => {
    const ids: Record<string, string> = {};
    for (const [name, times] of [
      ['Pay', 2],
      ['Refund', 1],
    ] as const) {
      for (let i = 0; i < times; i++) {
        const ack = await postJson(
          svc,
          '/v1/events',
          fullEvent({
            id: randomUUID(),
            timestamp: new Date().toISOString(),
            exception: { type: `${name}Error`, value: `${name} broke`, stacktrace: [{ filename: `src/${name}.js`, function: name, lineno: 1, in_app: true }] },
          }),
        );
        ids[name] = String(ack.permalink).split('/').pop()!;
      }
    }
    const page = await signedIn();
    await page.goto(`${svc.baseUrl}/issues`);
    await page.getByRole('checkbox', { name: 'Select PayError: Pay broke' }).check();
    await page.getByRole('checkbox', { name: 'Select RefundError: Refund broke' }).check();
    await page.getByRole('button', { name: 'Merge', exact: true }).click();
    await expect.poll(() => page.locator('p.notice').textContent()).toBe('1 issue merged.');
    const refund = (await (await svc.api(`/v1/issues/${ids.Refund}`)).json()) as { id: string; merged_into?: string; count: number };
    expect(refund.merged_into).toBe(ids.Pay);
    expect([refund.id, refund.count]).toEqual([ids.Pay, 3]);
    await page.close();
  });
});
