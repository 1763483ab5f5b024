// Shared by the symbolication end-to-end tests: running the built app, turning what it reports
// into events with the project's own stack parser, uploading builds, and checking the
// symbolicated frames against the marked source (test/support/app-source.ts).
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import type { StackFrame } from '../../src/records/event.js';
import { parseStacktrace } from '../../connectors/exceptions/stacktrace-text.js';
import { APP_DIR, type AppBuild, type AppBuilds } from './app-builds.js';
import { markedSites, sitesOf, type SourceSite } from './app-source.js';

/** The builds the global setup made (test/support/app-builds.setup.ts). */
export function appBuilds(): AppBuilds {
  const builds = inject('appBuilds');
  if (!builds) throw new Error('the app builds are made by test/support/app-builds.setup.ts (globalSetup in vitest.config.ts)');
  return builds;
}

/** What the app reports about the error it caught (test/fixtures/app/src/main.ts). */
export interface AppReport {
  name: string;
  message: string;
  stack: string;
  userAgent?: string;
  debugIds?: Record<string, string>;
}

/** The app's marked frame sites (file paths like `src/cart.ts`). */
export const APP_SITES = markedSites(APP_DIR, ['.ts']);

/**
 * The app's call chain, oldest call first, as V8 prints it: `run` appears as an async frame
 * (`at async run`) at its `await`. Firefox captures no async frames unless devtools are open, so
 * its chain starts at `checkout`. Array#reduce's own frame (V8: `at Array.reduce (<anonymous>)`)
 * has no source and is not a site.
 */
export const V8_CHAIN = ['run', 'checkout', 'Cart.total', 'totalOf', 'lineTotal', 'priceOf'] as const;
export const FIREFOX_CHAIN = V8_CHAIN.slice(1);

export function appSites(chain: readonly string[]): SourceSite[] {
  return sitesOf(APP_SITES, chain);
}

/** Runs a build's bundle with Node (`node dist/app.min.js`) and returns its report. */
export function runInNode(build: AppBuild): Promise<AppReport> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(build.dist, build.bundle)], { timeout: 10_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`node ${build.bundle} failed: ${error.message}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout.trim()) as AppReport);
      } catch {
        reject(new Error(`node ${build.bundle} printed no report: ${stdout}\n${stderr}`));
      }
    });
  });
}

/** The report's stack text as event frames, through src/records/stacktrace-text.ts. */
export function framesOf(report: AppReport): StackFrame[] {
  const frames = parseStacktrace(report.stack, 'javascript');
  expect(frames.length, `src/records/stacktrace-text.ts parsed no frames from:\n${report.stack}`).toBeGreaterThan(0);
  return frames;
}

/**
 * `debug_meta.images` as a Sentry browser/Node SDK builds them from what `sentry-cli sourcemaps
 * inject` left in `globalThis._sentryDebugIds` (stack text of the injected snippet -> debug id):
 * the file of the snippet's own frame is the bundle the debug id belongs to.
 */
export function debugImagesOf(report: AppReport): Array<{ type: 'sourcemap'; code_file: string; debug_id: string }> {
  return Object.entries(report.debugIds ?? {}).map(([stack, debugId]) => {
    const top = parseStacktrace(stack, 'javascript').at(-1);
    const codeFile = top?.abs_path ?? top?.filename;
    if (!codeFile) throw new Error(`no file in the debug-id stack:\n${stack}`);
    return { type: 'sourcemap', code_file: codeFile, debug_id: debugId };
  });
}

let eventCounter = 0;

/** An error event carrying the report's exception and frames. */
export function jsEvent(
  report: AppReport,
  release: string,
  extra: Record<string, unknown> = {},
  frames: StackFrame[] = framesOf(report),
): Record<string, unknown> {
  eventCounter++;
  return {
    timestamp: new Date(Date.now() - eventCounter).toISOString(),
    environment: 'production',
    release,
    platform: 'javascript',
    exception: { type: report.name, value: report.message, stacktrace: frames },
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------
// The API
// ---------------------------------------------------------------------------------------------

export type Api = (path: string, init?: RequestInit & { key?: string | null }) => Promise<Response>;

/** An API client for a base URL and key (what startService's `api` is, for a process). */
export function apiFor(baseUrl: string, key: string): Api {
  return (path, init = {}) => {
    const { key: override, ...rest } = init;
    const headers = new Headers(rest.headers);
    const bearer = override === undefined ? key : override;
    if (bearer !== null) headers.set('authorization', `Bearer ${bearer}`);
    if (rest.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(baseUrl + path, { ...rest, headers });
  };
}

export interface UploadFile {
  name: string;
  content: string | Buffer;
}

export interface BundleAnswer {
  id: string;
  project_id: string;
  release: string;
  dist: string | null;
  created_at: string;
  files: Array<{ name: string; type: string; size: number; sha256: string; debug_id: string | null }>;
}

/** A build's bundle and map, named `<prefix><file name>`. */
export function buildFiles(build: AppBuild, prefix = ''): UploadFile[] {
  return [build.bundle, build.map].map((file) => ({ name: prefix + file, content: readFileSync(join(build.dist, file)) }));
}

/** POST /v1/sourcemaps with a JSON body (contents base64). */
export function uploadJson(api: Api, fields: { project_id: string; release: string; dist?: string }, files: UploadFile[]): Promise<Response> {
  const body = {
    ...fields,
    files: files.map((file) => ({ name: file.name, content: Buffer.from(file.content).toString('base64'), encoding: 'base64' })),
  };
  return api('/v1/sourcemaps', { method: 'POST', body: JSON.stringify(body) });
}

/** POST /v1/sourcemaps as multipart/form-data: the fields, then one part per file, its filename the artifact's name. */
export async function uploadMultipart(api: Api, fields: { project_id: string; release: string; dist?: string }, files: UploadFile[]): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  for (const file of files) form.append('file', new Blob([new Uint8Array(Buffer.from(file.content))]), file.name);
  // Encoded here so the api helper does not take the body for JSON.
  const encoded = new Response(form);
  const contentType = encoded.headers.get('content-type') as string;
  return api('/v1/sourcemaps', { method: 'POST', headers: { 'content-type': contentType }, body: Buffer.from(await encoded.arrayBuffer()) });
}

/** Expects a 201 and returns the bundle. */
export async function expectUploaded(response: Promise<Response> | Response): Promise<BundleAnswer> {
  const res = await response;
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return JSON.parse(text) as BundleAnswer;
}

export async function postEvent(api: Api, event: Record<string, unknown>): Promise<{ id: string; issueId: string }> {
  const res = await api('/v1/events', { method: 'POST', body: JSON.stringify(event) });
  const text = await res.text();
  expect(res.status, text).toBe(202);
  const ack = JSON.parse(text) as { id: string; permalink: string };
  return { id: ack.id, issueId: ack.permalink.split('/').at(-1) as string };
}

export async function getEvent(api: Api, id: string): Promise<Record<string, any>> {
  const res = await api(`/v1/events/${id}`);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Record<string, any>;
}

/** Posts the event and reads it back. */
export async function roundTrip(api: Api, event: Record<string, unknown>): Promise<Record<string, any>> {
  const { id } = await postEvent(api, event);
  return getEvent(api, id);
}

// ---------------------------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------------------------

/** `context_lines` of the symbolication processor's default configuration. */
const CONTEXT_LINES = 5;

/** The app's source files the frames may point at. */
const APP_SOURCE = /(?:^|\/)src\/[\w-]+\.ts$/;

export interface SiteExpectation {
  /** Sites (by function) the build's map cannot place, with the reason: only their file is asserted. */
  positionNotMapped?: Record<string, string>;
}

/**
 * Every frame of the event that points into the app's sources, oldest call first, is exactly
 * `sites`: file, line, column, function, and the source lines around it. No frame still points
 * at a minified bundle.
 */
export function expectFramesAt(event: Record<string, any>, sites: SourceSite[], options: SiteExpectation = {}): void {
  const frames: any[] = event.exception?.stacktrace ?? [];
  const described = JSON.stringify(frames, null, 1);
  const appFrames = frames.filter((frame) => typeof frame.filename === 'string' && APP_SOURCE.test(frame.filename.replace(/\\/g, '/')));
  expect(
    appFrames.map((frame) => `${frame.function} ${frame.filename}:${frame.lineno}`),
    `the app's frames, oldest first; all frames:\n${described}\nprocessing_errors: ${JSON.stringify(event.processing_errors)}`,
  ).toHaveLength(sites.length);
  sites.forEach((site, index) => {
    const frame = appFrames[index];
    const where = `frame ${index} (${site.function} at ${site.file}:${site.line}:${site.column}) = ${JSON.stringify(frame)}`;
    expect(frame.filename, where).toBe(site.file);
    if (options.positionNotMapped?.[site.function] !== undefined) return;
    expect(frame.lineno, where).toBe(site.line);
    expect(frame.colno, where).toBe(site.column);
    expect(frame.function, where).toBe(site.function);
    expect(frame.context_line, `${where}: context_line`).toBe(site.lineText);
    // The symbolicator's default: 5 lines either side, fewer at the ends of the file.
    expect(frame.pre_context, `${where}: pre_context`).toEqual(site.fileLines.slice(Math.max(0, site.line - 1 - CONTEXT_LINES), site.line - 1));
    expect(frame.post_context, `${where}: post_context`).toEqual(site.fileLines.slice(site.line, site.line + CONTEXT_LINES));
  });
  const minified = frames.filter((frame) => typeof frame.filename === 'string' && /\.min\.js(?:\?|$)/.test(frame.filename));
  expect(minified, `frames still in a minified bundle; processing_errors: ${JSON.stringify(event.processing_errors)}`).toEqual([]);
}

/**
 * The event's frames were left as received. `error`: the processing error the event must carry
 * (`missing_source_map`), or null for none: frames of a file on disk that nothing promised a map
 * for (no debug id, no uploaded minified source) stay quiet, as server code run as written does.
 */
export function expectUnsymbolicated(event: Record<string, any>, sent: StackFrame[], error: string | null): void {
  const frames: any[] = event.exception?.stacktrace ?? [];
  expect(frames.map(({ filename, lineno, colno, function: fn }) => ({ filename, lineno, colno, function: fn }))).toEqual(
    sent.map(({ filename, lineno, colno, function: fn }) => ({ filename, lineno, colno, function: fn })),
  );
  expect(event.exception.raw_stacktrace).toEqual(sent);
  const types = (event.processing_errors as Array<{ type: string }>).map((entry) => entry.type);
  if (error === null) expect(types).toEqual([]);
  else expect(types, JSON.stringify(event.processing_errors)).toContain(error);
}

/** The report as if its bundle had been served from `url`: the bundle's path in the stack text becomes the URL. */
export function servedFrom(report: AppReport, build: AppBuild, url: string): AppReport {
  return { ...report, stack: report.stack.split(join(build.dist, build.bundle)).join(url) };
}

/**
 * Firefox's stack text (`fn@url:line:col`, newest first) as frames, oldest first.
 * src/records/stacktrace-text.ts reads V8, Python and Java text but not SpiderMonkey's (see the
 * known-gap test in symbolication-browsers.test.ts), so the browser test reads it here, in the
 * same frame shape the V8 parser gives.
 */
export function firefoxFrames(stack: string): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const line of stack.split('\n')) {
    const match = /^(.*)@(.+):(\d+):(\d+)$/.exec(line.trim());
    if (!match) continue;
    const [, fn, url, lineno, colno] = match;
    const frame: StackFrame = {};
    if (fn !== '') frame.function = fn;
    Object.assign(frame, { filename: url, abs_path: url, lineno: Number(lineno), colno: Number(colno), in_app: true });
    frames.push(frame);
  }
  return frames.reverse();
}
