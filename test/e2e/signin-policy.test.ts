// Sign-in as an attacker tries it (issue 23, item 6): parallel guesses are counted before any is
// verified, one address cannot lock an account's owner out, only local paths are redirect
// targets, unknown accounts take as long as known ones, and hashes made with older scrypt
// parameters are replaced at the next sign-in.
import { scryptSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../extensions/duckdb/rows.js';
import { SCRYPT, Users } from '../../extensions/catalog/users.js';
import { startService, type TestService } from '../support/service.js';
import { createUser, WebClient } from '../support/web.js';
import { catalogOf } from '../../extensions/catalog/index.js';
import { databaseOf } from '../../extensions/duckdb/index.js';

let svc: TestService;
let password: string;

beforeAll(async () => {
  // Behind a proxy: the client's address is the last X-Forwarded-For entry.
  svc = await startService({ env: { FAULTLINE_TRUST_PROXY: 'true' } });
  password = await createUser(svc, 'owner@example.com', 'member');
});

afterAll(async () => {
  await svc?.stop();
});

/** A browser at `address` (as the proxy reports it). */
function client(address: string): { browser: WebClient; signIn: (email: string, pw: string, next?: string) => Promise<Response> } {
  const browser = new WebClient(svc.baseUrl);
  const headers = { 'x-forwarded-for': `198.18.0.1, ${address}` };
  return {
    browser,
    signIn: async (email, pw, next = '/issues') => {
      const page = await (await browser.fetch(`/signin?next=${encodeURIComponent(next)}`, { headers })).text();
      return browser.post('/signin', { _csrf: WebClient.csrfOf(page), email, password: pw, next }, headers);
    },
  };
}

async function storedHash(email: string): Promise<string> {
  const result = await databaseOf(svc.service.host).reader().runAndReadAll('SELECT password_hash FROM web_users WHERE email = ?', [email]);
  return rows<{ password_hash: string }>(result)[0].password_hash;
}

describe('sign-in', () => {
  it('counts 100 parallel guesses before verifying any: at most the limit are verified, the right password past it is refused', async () => {
    const attacker = client('203.0.113.7');
    // One CSRF cookie and token for all of them, as a script would do.
    const page = await (await attacker.browser.fetch('/signin', { headers: { 'x-forwarded-for': '203.0.113.7' } })).text();
    const csrf = WebClient.csrfOf(page);
    const guesses = Array.from({ length: 100 }, (_, i) => (i === 99 ? password : `wrong-${i}`));
    const statuses = await Promise.all(
      guesses.map((guess) =>
        attacker.browser.post('/signin', { _csrf: csrf, email: 'owner@example.com', password: guess }, { 'x-forwarded-for': '203.0.113.7' }),
      ),
    ).then((all) => all.map((r) => r.status));
    const verified = statuses.filter((s) => s !== 429);
    expect(verified.length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(95);
    expect(statuses[99]).toBe(429);
    expect(statuses).not.toContain(303);

    // The owner, from their own address, is not locked out by it.
    const owner = client('198.51.100.2');
    expect((await owner.signIn('owner@example.com', password)).status).toBe(303);
  }, 60_000);

  it('limits one address across accounts, and never trusts X-Forwarded-For entries before the last', async () => {
    const sprayer = client('203.0.113.9');
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await sprayer.signIn(`nobody-${i}@example.com`, 'guess')).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
    // A spoofed first entry does not make it another client.
    const spoofing = new WebClient(svc.baseUrl);
    const headers = { 'x-forwarded-for': '192.0.2.55, 203.0.113.9' };
    const page = await (await spoofing.fetch('/signin', { headers })).text();
    expect((await spoofing.post('/signin', { _csrf: WebClient.csrfOf(page), email: 'other@example.com', password: 'x' }, headers)).status).toBe(429);
    // Another address still signs in.
    expect((await client('198.51.100.3').signIn('owner@example.com', password)).status).toBe(303);
  }, 120_000);

  it('takes as long to refuse an unknown account as a known one', async () => {
    const time = async (email: string, address: string) => {
      const c = client(address);
      const started = performance.now();
      expect((await c.signIn(email, 'not-the-password')).status).toBe(401);
      return performance.now() - started;
    };
    // Warm both paths (the dummy hash is made once), then compare.
    await time('ghost@example.com', '198.51.100.20');
    const known = Math.min(await time('owner@example.com', '198.51.100.21'), await time('owner@example.com', '198.51.100.22'));
    const unknown = Math.min(await time('ghost@example.com', '198.51.100.23'), await time('ghost@example.com', '198.51.100.24'));
    // Without the dummy hash an unknown account answers in a few ms, a known one after a full scrypt.
    expect(unknown).toBeGreaterThan(known * 0.5);
  }, 120_000);

  it('redirects only to local paths: a tab, a backslash, another origin or non-ASCII text go to /', async () => {
    // The reported link: the tab arrives decoded in the hidden field and would be stripped by the browser.
    const page = await (await fetch(`${svc.baseUrl}/signin?next=/%09/evil.example/x`)).text();
    expect(page).toContain('name="next" value="/"');
    const signIn = (next: string) => client('198.51.100.30').signIn('owner@example.com', password, next);
    for (const next of ['/\t/evil.example/x', '/\\evil.example', '//evil.example/x', 'https://evil.example/', '/\u00e9t\u00e9', '/\u20ac', '/a b']) {
      const res = await signIn(next);
      expect(res.status, next).toBe(303);
      expect(res.headers.get('location'), next).toBe('/');
    }
    // Percent-encoded text stays a path of this server.
    expect((await signIn('/%09/evil.example/x')).headers.get('location')).toBe('/%09/evil.example/x');
    expect((await signIn('/issues?status=resolved')).headers.get('location')).toBe('/issues?status=resolved');
  }, 120_000);

  it('answers a non-Latin-1 next on GET /signin without a 5xx, signed in or not', async () => {
    const anonymous = await fetch(`${svc.baseUrl}/signin?next=/%E2%82%AC`, { redirect: 'manual' });
    expect(anonymous.status).toBe(200);
    expect(await anonymous.text()).toContain('name="next" value="/"');
    const c = client('198.51.100.31');
    expect((await c.signIn('owner@example.com', password)).status).toBe(303);
    const signedIn = await c.browser.fetch('/signin?next=/%E2%82%AC%0A');
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/');
  }, 60_000);

  it('replaces a hash made with older scrypt parameters at the next sign-in, and the password still works', async () => {
    // A user stored as the previous release did: scrypt N=2^14.
    const salt = randomBytes(16);
    const old = [
      'scrypt',
      16384,
      8,
      1,
      salt.toString('base64url'),
      scryptSync('old-params-password', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url'),
    ].join('$');
    const org = await catalogOf(svc.service.host).defaultOrganization();
    await new Users(databaseOf(svc.service.host)).create({ email: 'veteran@example.com', role: 'member', passwordHash: old, orgId: org.id });

    expect((await client('198.51.100.40').signIn('veteran@example.com', 'old-params-password')).status).toBe(303);
    const rehashed = await storedHash('veteran@example.com');
    expect(rehashed).not.toBe(old);
    expect(rehashed.startsWith(`scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$`)).toBe(true);
    expect(SCRYPT.N).toBe(2 ** 17);
    expect((await client('198.51.100.41').signIn('veteran@example.com', 'old-params-password')).status).toBe(303);
    expect(await storedHash('veteran@example.com')).toBe(rehashed);
    expect((await client('198.51.100.42').signIn('veteran@example.com', 'wrong-password')).status).toBe(401);
  }, 120_000);
});

describe('sign-in without trust_proxy', () => {
  let direct: TestService;
  beforeAll(async () => {
    direct = await startService();
  });
  afterAll(async () => {
    await direct?.stop();
  });

  it('ignores X-Forwarded-For: rotating it does not buy more guesses', async () => {
    const browser = new WebClient(direct.baseUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const headers = { 'x-forwarded-for': `192.0.2.${i + 1}` };
      const page = await (await browser.fetch('/signin', { headers })).text();
      statuses.push((await browser.post('/signin', { _csrf: WebClient.csrfOf(page), email: 'target@example.com', password: `guess-${i}` }, headers)).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  }, 60_000);
});
