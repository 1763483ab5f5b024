// The triage page in a real browser (Debian's Chromium, driven by playwright-core; issue #26): a
// similar issue merged from the candidates, the merged issue's permalink opening the target, a
// comment whose HTML and script links stay text, the activity timeline, and an unmerge.
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ack } from '../support/http.js';
import { browserBinary } from '../support/browsers.js';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { createUser } from '../support/web.js';

let svc: TestService;
let browser: Browser;
let password: string;

beforeAll(async () => {
  const executablePath = browserBinary('chromium');
  [svc, browser] = await Promise.all([startService(), chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })]);
  password = await createUser(svc, 'triager@example.com', 'member');
});

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

async function ingest(type: string, fn: string): Promise<string> {
  const event = fullEvent({
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    exception: { type, value: 'cart is empty', stacktrace: [{ filename: 'src/cart.js', function: fn, lineno: 3, colno: 9, in_app: true }] },
  });
  const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(event) });
  expect(res.status).toBe(202);
  return ((await res.json()) as Ack).permalink.split('/').pop()!;
}

async function signIn(page: Page): Promise<void> {
  await page.goto(`${svc.baseUrl}/signin`);
  await page.getByLabel('Email').fill('triager@example.com');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/issues');
}

describe('the triage page in Chromium', () => {
  it('merges a similar issue, comments safely, shows the activity and unmerges', { timeout: 60_000 }, async () => {
    const target = await ingest('CartError', 'addItem');
    const similar = await ingest('CartError', 'removeItem');
    const unrelated = await ingest('PaymentError', 'charge');
    const page = await (await browser.newContext()).newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signIn(page);

    await page.goto(`${svc.baseUrl}/issues/${target}`);
    await page.getByRole('link', { name: 'Merge, fingerprints, comments and activity' }).click();
    await page.waitForURL(`**/issues/${target}/triage`);
    // Candidates: the project's issues of the same type or culprit, not the others.
    const merge = page.locator('form[action$="/merge"]');
    expect(await merge.locator(`input[value="${similar}"]`).count()).toBe(1);
    expect(await merge.locator(`input[value="${unrelated}"]`).count()).toBe(0);
    await merge.locator(`input[value="${similar}"]`).check();
    await page.getByRole('button', { name: 'Merge selected' }).click();
    await page.waitForURL(`**/issues/${target}/triage?done=merged`);
    expect(await page.getByRole('status').textContent()).toContain('Merged');
    const prints = page.locator('form[action$="/unmerge"] tbody tr');
    expect(await prints.count()).toBe(2);
    expect(await page.locator('li.activity-merged').textContent()).toContain(similar);
    expect(await page.locator('li.activity-merged .actor').textContent()).toBe('triager@example.com');

    // The merged issue's permalink opens the target.
    await page.goto(`${svc.baseUrl}/issues/${similar}`);
    await page.waitForURL(`**/issues/${target}`);
    expect(await page.locator('h1.issue-title').textContent()).toContain('CartError');

    // A comment: the Markdown subset renders, typed HTML and script links stay text.
    await page.goto(`${svc.baseUrl}/issues/${target}/triage`);
    await page
      .getByRole('textbox', { name: /^Comment/ })
      .fill(
        'Seen in **checkout** with `cart.js`.\n<img src=x onerror="alert(1)"><script>alert(2)</script>\n[bad](javascript:alert(3)) [docs](https://example.com/cart)',
      );
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.waitForURL(`**/issues/${target}/triage?done=commented`);
    const body = page.locator('li.activity-comment .comment-body');
    expect(await body.locator('strong').textContent()).toBe('checkout');
    expect(await body.locator('code').textContent()).toBe('cart.js');
    expect(await body.locator('img, script').count()).toBe(0);
    expect(await body.textContent()).toContain('<img src=x onerror="alert(1)">');
    const links = body.locator('a');
    expect(await links.count()).toBe(1);
    expect(await links.getAttribute('href')).toBe('https://example.com/cart');
    expect(await links.getAttribute('rel')).toContain('noopener');
    expect(await body.textContent()).toContain('[bad](javascript:alert(3))');
    expect(dialogs).toEqual([]);

    // Unmerge the similar issue's fingerprint: it is its own issue again.
    await page.getByLabel(`Unmerge ${similar}`).check();
    await page.getByRole('button', { name: 'Unmerge selected' }).click();
    await page.waitForURL(`**/issues/${similar}/triage?done=unmerged`);
    expect(await page.locator('form[action$="/unmerge"] tbody tr').count()).toBe(1);
    expect(await page.locator('li.activity-unmerged_from').textContent()).toContain(target);
    const kinds = await page.locator('ol.activity > li').evaluateAll((items) => items.map((li) => li.className));
    expect(kinds).toEqual(['activity-unmerged_from', 'activity-merged_into', 'activity-first_seen']);
  });
});
