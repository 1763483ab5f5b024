// Real browser stack traces: serves pages and bundles from a loopback HTTP server, opens them in
// headless Chromium or Firefox (the Debian binaries), and collects what each page reports (the
// fixture app POSTs error.stack and navigator.userAgent to /report). One browser start loads every
// page at once, each in an iframe of a runner page.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import type { AppReport } from './symbolication.js';

export type BrowserName = 'chromium' | 'firefox';

const BROWSERS: Record<BrowserName, { env: string; path: string; install: string }> = {
  chromium: { env: 'CHROMIUM_BIN', path: '/usr/bin/chromium', install: 'apt-get update && apt-get install -y chromium' },
  firefox: { env: 'FIREFOX_BIN', path: '/usr/bin/firefox-esr', install: 'apt-get update && apt-get install -y firefox-esr' },
};

/** The browser's binary, or an error that says how to install it (CI's .ci/run installs both). */
export function browserBinary(name: BrowserName): string {
  const { env, path, install } = BROWSERS[name];
  const binary = process.env[env] ?? path;
  if (!existsSync(binary)) {
    throw new Error(`${name} is not installed at ${binary}: these tests need a real browser. Install it with \`${install}\` (.ci/run does), or set ${env}.`);
  }
  return binary;
}

/** A page: the scripts it loads, by the URL path (and query) the browser fetches them from. */
export interface PageSpec {
  scripts: Array<{ url: string; file: string }>;
}

export interface BrowserRun {
  /** Each page's report, by page name. */
  reports: Record<string, AppReport>;
  /** The origin the pages were served from (`http://127.0.0.1:<port>`). */
  origin: string;
}

export function argsFor(name: BrowserName, profile: string, url: string): string[] {
  if (name === 'chromium') {
    return [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      `--user-data-dir=${profile}`,
      url,
    ];
  }
  return ['--headless', '--no-remote', '--profile', profile, url];
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

/**
 * Opens `pages` in the browser and resolves with every page's report; rejects after `timeoutMs`.
 * The browser is killed (its whole process group) either way.
 */
export async function runPages(name: BrowserName, pages: Record<string, PageSpec>, timeoutMs = 30_000): Promise<BrowserRun> {
  const binary = browserBinary(name);
  const scripts = new Map<string, string>();
  for (const page of Object.values(pages)) for (const script of page.scripts) scripts.set(script.url, script.file);
  const reports: Record<string, AppReport> = {};
  let allReported: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allReported = resolve));

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/') {
      const frames = Object.keys(pages).map((page) => `<iframe src="/page/${page}"></iframe>`);
      return send(res, 200, 'text/html', `<!doctype html><title>runner</title>${frames.join('')}`);
    }
    const page = /^\/page\/([\w-]+)$/.exec(url.pathname)?.[1];
    if (req.method === 'GET' && page !== undefined && pages[page]) {
      const tags = pages[page].scripts.map((script) => `<script src="${script.url}"></script>`);
      return send(res, 200, 'text/html', `<!doctype html><title>${page}</title>${tags.join('')}`);
    }
    const file = scripts.get(url.pathname + url.search);
    if (req.method === 'GET' && file !== undefined) return send(res, 200, 'text/javascript', readFileSync(file));
    if (req.method === 'POST' && url.pathname === '/report') {
      const from = /\/page\/([\w-]+)$/.exec(req.headers.referer ?? '')?.[1];
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        if (from !== undefined) reports[from] = JSON.parse(body) as AppReport;
        send(res, 204, 'text/plain', '');
        if (Object.keys(pages).every((name) => reports[name] !== undefined)) allReported();
      });
      return;
    }
    send(res, 404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const profile = mkdtempSync(join(tmpdir(), `faultline-${name}-`));
  // Its own process group, so that killing it takes its helper processes along.
  const child = spawn(binary, argsFor(name, profile, `${origin}/`), { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  child.on('error', () => undefined); // reported through `exited` and the timeout
  // Should the test process end first (a failed hook), the browser goes with it.
  const killOnExit = () => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  process.on('exit', killOnExit);

  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      done,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const missing = Object.keys(pages).filter((page) => reports[page] === undefined);
          reject(new Error(`${name} did not report ${missing.join(', ')} within ${timeoutMs} ms; its stderr ends with:\n${stderr}`));
        }, timeoutMs);
      }),
      exited.then(() => {
        throw new Error(`${name} exited before every page reported; its stderr ends with:\n${stderr}`);
      }),
    ]);
    return { reports, origin };
  } finally {
    clearTimeout(timer);
    await stop(child.pid, exited);
    process.off('exit', killOnExit);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    rmSync(profile, { recursive: true, force: true });
  }
}

/** SIGTERM to the browser's process group, SIGKILL if it is still there after 5 s. */
export async function stop(pid: number | undefined, exited: Promise<void>): Promise<void> {
  if (pid === undefined) return;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const killed = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 5_000)))]);
  clearTimeout(timer);
  if (!killed) {
    signal('SIGKILL');
    await exited;
  }
  // Helpers that outlived the main process.
  signal('SIGKILL');
}

/** Headless Chromium for playwright-core tests (Debian's binary, flags for containers). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: browserBinary('chromium'), args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
