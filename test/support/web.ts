// The web app from a test: create a user through the CLI (over the running service's admin
// socket), and sign in with plain fetch, keeping the cookies a browser would.
import { expect } from 'vitest';
import { childEnv, runCli } from './process.js';
import type { TestService } from './service.js';

export async function createUser(svc: TestService, email: string, role: 'admin' | 'member'): Promise<string> {
  const run = await runCli(['users', 'create', '--email', email, '--role', role], childEnv(svc.dataDir, { FAULTLINE_APP_URL: 'http://faultline.test' }));
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(`Created ${role} ${email}`);
  return run.stdout.trimEnd().split('\n').at(-1) as string;
}

/** A fetch that keeps cookies, like a browser of one origin. */
export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    if (!headers.has('accept')) headers.set('accept', 'text/html');
    const res = await fetch(this.baseUrl + path, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (attrs.some((a) => /max-age=0/i.test(a.trim())) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** The hidden _csrf of the first form of a page. */
  static csrfOf(html: string): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(html);
    if (!match) throw new Error('no CSRF token on the page');
    return match[1];
  }

  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return this.fetch(path, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.baseUrl, ...headers },
    });
  }

  async signIn(email: string, password: string, next = '/issues'): Promise<Response> {
    const page = await (await this.fetch(`/signin?next=${encodeURIComponent(next)}`)).text();
    return this.post('/signin', { _csrf: WebClient.csrfOf(page), email, password, next });
  }
}
