// A page recorded with rrweb in a real browser (Chromium or Firefox, the Debian binaries), served
// from a loopback server. The page types, clicks, navigates (pushState plus a fresh full snapshot,
// as rrweb does for a single-page app), throws an error, and sends its segments and its error
// event as a page would: the server only forwards them to Faultline with the API key (a key does
// not belong in a page, and Faultline serves no CORS). Then the page navigates to a player page
// that fetches the stored segments and rebuilds the DOM with rrweb's Replayer, and reports what
// the rebuilt DOM shows.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argsFor, browserBinary, stop, type BrowserName } from './browsers.js';

export interface RecordingReport {
  replayId: string;
  /** The first rrweb event's time, and the error event's: the bookmark's offset is their difference. */
  firstEventAt: number;
  errorAt: number;
  errorEventId: string;
  typed: string;
  /** Status of each POST, in order. */
  statuses: number[];
  /** What the Replayer's rebuilt DOM shows. */
  replayed: { input: string | null; greeting: string | null; url: string | null };
}

const RRWEB = join(process.cwd(), 'node_modules/rrweb/dist/rrweb.umd.cjs');

const RECORD_PAGE = (replayId: string, errorEventId: string) => `<!doctype html>
<html><head><title>checkout</title><script src="/rrweb.js"></script></head>
<body>
<h1>Checkout</h1>
<label>Name <input id="name" type="text"></label>
<button id="next">Next</button>
<p id="greeting"></p>
<script>
const REPLAY = ${JSON.stringify(replayId)};
const EVENT_ID = ${JSON.stringify(errorEventId)};
const buffer = [];
const statuses = [];
let firstEventAt;
rrweb.record({ emit(event) { firstEventAt ??= event.timestamp; buffer.push(event); } });
const tick = () => new Promise((resolve) => setTimeout(resolve, 60));
const take = () => buffer.splice(0, buffer.length);
async function gzipBytes(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
async function post(path, init) {
  const res = await fetch(path, { method: 'POST', ...init });
  statuses.push(res.status);
}
async function typeInto(input, text) {
  for (const ch of text) {
    input.value += ch;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
async function main() {
  await tick();
  const input = document.getElementById('name');
  input.focus();
  await typeInto(input, 'Ada Lovelace');
  await tick();
  // Segment 0: JSON events.
  await post('/faultline/v1/replays', { headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ replay_id: REPLAY, segment_id: 0, environment: 'browser-test', release: 'shop@1.0.0', user: { id: 'ada' }, events: take() }) });
  document.getElementById('next').addEventListener('click', () => {
    history.pushState({}, '', '/checkout/step-2');
    document.getElementById('greeting').textContent = 'Hello ' + input.value;
    rrweb.record.takeFullSnapshot(true);
  });
  document.getElementById('next').click();
  await tick();
  // Segment 1: the raw form, gzip-compressed in the page.
  await post('/faultline/v1/replays?replay_id=' + REPLAY + '&segment_id=1', { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: await gzipBytes(JSON.stringify(take())) });
  await tick();
  let errorAt;
  try {
    null.total();
  } catch (error) {
    errorAt = Date.now();
    await post('/faultline/v1/events', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({
      id: EVENT_ID, timestamp: new Date(errorAt).toISOString(), environment: 'browser-test', release: 'shop@1.0.0',
      exception: { type: error.name, value: error.message }, replay_id: REPLAY }) });
  }
  input.value += '!';
  input.dispatchEvent(new Event('input', { bubbles: true }));
  await tick();
  // Segment 2: base64 of gzip in \`data\`.
  const bytes = await gzipBytes(JSON.stringify(take()));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  await post('/faultline/v1/replays', { headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ replay_id: REPLAY, segment_id: 2, data: btoa(binary), error_ids: [EVENT_ID] }) });
  sessionStorage.setItem('recording', JSON.stringify({ replayId: REPLAY, firstEventAt, errorAt, errorEventId: EVENT_ID, typed: input.value, statuses }));
  location.href = '/play?replay=' + REPLAY;
}
main().catch((error) => fetch('/report', { method: 'POST', body: JSON.stringify({ failed: String(error && error.stack || error) }) }));
</script></body></html>`;

const PLAY_PAGE = `<!doctype html>
<html><head><title>player</title><script src="/rrweb.js"></script></head><body><div id="player"></div>
<script>
async function main() {
  const recording = JSON.parse(sessionStorage.getItem('recording'));
  const replay = await (await fetch('/faultline/v1/replays/' + recording.replayId)).json();
  const events = [];
  for (const stream of replay.streams) events.push(...(await (await fetch('/faultline/v1/replays/' + recording.replayId + '/segments/' + stream.segment_id)).json()));
  const replayer = new rrweb.Replayer(events, { root: document.getElementById('player') });
  // Events strictly before the offset are applied at once: one past the end applies them all.
  replayer.pause(replayer.getMetaData().totalTime + 1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const doc = replayer.iframe.contentDocument;
  const input = doc.getElementById('name');
  const greeting = doc.getElementById('greeting');
  const meta = events.filter((e) => e.type === 4).pop();
  recording.replayed = { input: input ? input.value : null, greeting: greeting ? greeting.textContent : null, url: meta ? meta.data.href : null };
  await fetch('/report', { method: 'POST', body: JSON.stringify(recording) });
}
main().catch((error) => fetch('/report', { method: 'POST', body: JSON.stringify({ failed: String(error && error.stack || error) }) }));
</script></body></html>`;

/** Records a session in the browser against Faultline at `faultline` (with `key`), and replays it. */
export async function recordAndReplay(
  name: BrowserName,
  faultline: string,
  key: string,
  replayId: string,
  errorEventId: string,
  timeoutMs = 30_000,
): Promise<RecordingReport> {
  const binary = browserBinary(name);
  let report: (value: unknown) => void = () => undefined;
  const reported = new Promise<unknown>((resolve) => (report = resolve));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (url.pathname === '/rrweb.js') return send(200, 'text/javascript', readFileSync(RRWEB));
      if (url.pathname === '/checkout') return send(200, 'text/html', RECORD_PAGE(replayId, errorEventId));
      if (url.pathname === '/play') return send(200, 'text/html', PLAY_PAGE);
      if (url.pathname === '/report') {
        report(JSON.parse(body.toString('utf8')));
        return send(204, 'text/plain', '');
      }
      if (url.pathname.startsWith('/faultline/')) {
        // Forwarded as the page sent it (body, type, encoding), with the key added.
        const headers: Record<string, string> = { authorization: `Bearer ${key}` };
        for (const name of ['content-type', 'content-encoding', 'accept-encoding']) if (req.headers[name]) headers[name] = String(req.headers[name]);
        fetch(faultline + url.pathname.slice('/faultline'.length) + url.search, { method: req.method, headers, body: req.method === 'POST' ? body : undefined })
          .then(async (answer) => send(answer.status, answer.headers.get('content-type') ?? 'application/json', Buffer.from(await answer.arrayBuffer())))
          .catch((error: unknown) => send(502, 'text/plain', String(error)));
        return;
      }
      send(404, 'text/plain', 'not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const profile = mkdtempSync(join(tmpdir(), `faultline-replay-${name}-`));
  const child = spawn(binary, argsFor(name, profile, `${origin}/checkout`), { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  child.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      reported,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`${name} did not report within ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs)),
      ),
      exited.then(() => {
        throw new Error(`${name} exited before reporting; stderr:\n${stderr}`);
      }),
    ]);
    const failed = (result as { failed?: string }).failed;
    if (failed) throw new Error(`the page failed in ${name}: ${failed}`);
    return result as RecordingReport;
  } finally {
    clearTimeout(timer);
    await stop(child.pid, exited);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    rmSync(profile, { recursive: true, force: true });
  }
}
