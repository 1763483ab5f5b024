// JavaScript frames: find the source map of each frame's file, map the position, recover the
// enclosing function's original name, fill the context lines and vendor frames' in_app.
//
// Matching, best first (the first that finds a map wins):
//   1. by debug id: the frame's `debug_id`, or the `debug_meta` image of type `sourcemap` whose
//      `code_file` is the frame's abs_path or filename; byDebugId(scope, id, source map and
//      minified source);
//   2. by URL: byNames with the candidates of candidateNames() and each with `.map` appended.
//      A minified source found so is followed through its `source_mapping_url` (relative to the
//      minified file's name; a `data:` URL is decoded in place), then the `<name>.map`
//      convention; a map uploaded as `<candidate>.map` is used when no minified source is.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { ArtifactFile } from '../../src/records/artifact.js';
import type { ErrorEvent, StackFrame } from '../../src/records/event.js';
import { LoadError, type Parsed } from './cache.js';
import { parsedArtifact, type EventJob, type Services } from './context.js';
import { originalFunctionName } from './function-names.js';
import { ScopeNames } from './scope-names.js';
import { missingMap, noteRawFrames, type MissingMap } from './why-raw.js';
import { ParsedSourceMap, SourceText, type OriginalPosition } from './source-map.js';
import { normalizeUuid } from './artifacts.js';

// ---------------------------------------------------------------------------------------------
// Which frames
// ---------------------------------------------------------------------------------------------

/** Frame platforms that are never JavaScript. */
const OTHER_PLATFORMS = new Set(['java', 'python', 'native', 'c', 'cocoa', 'csharp', 'go', 'php', 'ruby', 'elixir', 'dart']);
/** Locations V8 prints for frames without a file. */
const NO_FILE = new Set(['<anonymous>', 'native', '[native code]', 'unknown location']);

/** A frame a source map could resolve: a file, a line and a column (cheap: no allocation). */
export function isJavaScriptFrame(frame: StackFrame): boolean {
  if (typeof frame.lineno !== 'number' || typeof frame.colno !== 'number' || frame.instruction_addr !== undefined) return false;
  if (frame.platform !== undefined && OTHER_PLATFORMS.has(frame.platform)) return false;
  const path = frame.abs_path ?? frame.filename;
  if (path === undefined || path === '' || NO_FILE.has(path)) return false;
  return !path.startsWith('node:') && !path.startsWith('internal/');
}

// ---------------------------------------------------------------------------------------------
// Names to look files up by
// ---------------------------------------------------------------------------------------------

const SCHEME_AND_HOST = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;
const QUERY_OR_FRAGMENT = /[?#].*$/s;
const WINDOWS_PATH = /^[A-Za-z]:[\\/]/;

/** `~/path` for a URL or an absolute path: scheme and host dropped (undefined when it has no path). */
export function tildePath(path: string): string | undefined {
  if (WINDOWS_PATH.test(path)) return undefined;
  let rest: string;
  const host = SCHEME_AND_HOST.exec(path);
  if (host) rest = path.slice(host[0].length);
  else if (path.startsWith('/')) rest = path;
  else if (path.startsWith('~/')) return path;
  else return undefined;
  if (!rest.startsWith('/')) rest = `/${rest}`;
  return rest === '/' || rest.startsWith('/?') || rest.startsWith('/#') ? undefined : `~${rest}`;
}

/** Most `~/` suffixes tried for one path (its deepest directories are dropped first). */
const MAX_SUFFIXES = 16;

/**
 * `~/` names for the ends of a server-side path: an absolute file path (`/srv/app/dist/server.js`,
 * `file:///…`) or Sentry's `app:///dist/server.js` also matches a bundle uploaded from its build
 * folder with the default `--url-prefix '~'` (`~/server.js`) or from above it (`~/dist/server.js`),
 * longest first. A web URL does not: its path is the name it was served under.
 */
export function tildeSuffixes(path: string): string[] {
  const local = path.startsWith('/') ? path : /^(?:file|app):\/\/\//i.test(path) ? path.slice(path.indexOf(':') + 3) : undefined;
  if (local === undefined || local.length > 4096) return [];
  const parts = local.split('/').filter((part) => part !== '');
  const out: string[] = [];
  for (let start = Math.max(1, parts.length - MAX_SUFFIXES); start < parts.length; start++) out.push(`~/${parts.slice(start).join('/')}`);
  return out;
}

/**
 * The names a frame's file may have been uploaded under, best first: as given, without its query
 * string (and fragment), as `~/path` with and without the query, the `~/` suffixes of a
 * server-side path, its file name.
 */
export function candidateNames(path: string): string[] {
  const out: string[] = [];
  const add = (name: string | undefined) => {
    if (name !== undefined && name !== '' && !out.includes(name)) out.push(name);
  };
  const bare = path.replace(QUERY_OR_FRAGMENT, '');
  add(path);
  add(bare);
  add(tildePath(path));
  add(tildePath(bare));
  for (const suffix of tildeSuffixes(bare)) add(suffix);
  const slash = Math.max(bare.lastIndexOf('/'), bare.lastIndexOf('\\'));
  add(bare.slice(slash + 1));
  return out;
}

/** The names a `sourceMappingURL` may stand for, relative to the minified file's name. */
export function mapUrlNames(minifiedName: string, url: string): string[] {
  const out: string[] = [];
  const add = (name: string | undefined) => {
    if (name !== undefined && name !== '' && !out.includes(name)) out.push(name);
  };
  if (SCHEME_AND_HOST.test(url)) {
    add(url);
    add(tildePath(url));
    return out;
  }
  if (SCHEME_AND_HOST.test(minifiedName)) {
    try {
      const resolved = new URL(url, minifiedName).href;
      add(resolved);
      add(tildePath(resolved));
    } catch {
      // not resolvable: only the forms below
    }
    return out;
  }
  const bareUrl = url.replace(QUERY_OR_FRAGMENT, '');
  if (minifiedName.startsWith('~/')) {
    add(`~${posix.resolve(posix.dirname(minifiedName.slice(1)), bareUrl)}`);
  } else if (bareUrl.startsWith('/')) {
    add(`~${posix.normalize(bareUrl)}`);
  } else {
    const dir = posix.dirname(minifiedName);
    add(posix.normalize(dir === '.' ? bareUrl : posix.join(dir, bareUrl)));
  }
  return out;
}

/** The bytes of a `data:` URL (base64 or percent-encoded), or undefined. */
export function dataUrlBytes(url: string): Buffer | undefined {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0) return undefined;
  const meta = url.slice(5, comma);
  const data = url.slice(comma + 1);
  try {
    return meta.split(';').includes('base64') ? Buffer.from(data, 'base64') : Buffer.from(decodeURIComponent(data), 'utf8');
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Original paths and in_app
// ---------------------------------------------------------------------------------------------

const VENDOR_PATH = /(?:^|[\\/])node_modules[\\/]/;
const BUILT_JAVASCRIPT = /\.[cm]?js$/i;
const VENDOR_PREFIX = /^(?:webpack|\(webpack\)|vite)\//;
const LEADING_DOTS = /^(?:\.\.?\/)+/;

/** A source path without scheme and host (`webpack://app/`), leading `./` and `../`. */
export function displayPath(source: string): string {
  let path = source;
  const host = SCHEME_AND_HOST.exec(path);
  if (host) path = path.slice(host[0].length);
  path = path.replace(/^\/+/, host ? '' : '/');
  const relative = path.replace(LEADING_DOTS, '');
  return relative === '' ? source : relative;
}

/** Code a bundler pulled in: node_modules, or a bundler's own prefixes (webpack/, (webpack)/, vite/). */
export function isVendorSource(source: string): boolean {
  if (VENDOR_PATH.test(source)) return true;
  return VENDOR_PREFIX.test(displayPath(source));
}

/** The original source's path as a frame's abs_path: resolved against where the map was found. */
export function absoluteSource(source: string, mapName: string): string {
  if (SCHEME_AND_HOST.test(source) || WINDOWS_PATH.test(source)) return source;
  if (SCHEME_AND_HOST.test(mapName)) {
    try {
      return new URL(source, mapName).href;
    } catch {
      return source;
    }
  }
  if (source.startsWith('/')) return source;
  if (mapName.startsWith('~/')) return `~${posix.resolve(posix.dirname(mapName.slice(1)), source)}`;
  return source;
}

// ---------------------------------------------------------------------------------------------
// Symbolication
// ---------------------------------------------------------------------------------------------

/** What a resolved position gives a frame; memoized per map and position. */
interface Resolved {
  /** The fields to set, all present (one object spread copies them onto the frame). */
  fields: Pick<StackFrame, 'abs_path' | 'filename' | 'lineno' | 'colno'> &
    Partial<Pick<StackFrame, 'function' | 'context_line' | 'pre_context' | 'post_context'>>;
  vendor: boolean;
  /** The enclosing function is anonymous: the frame gets no function name. */
  anonymous?: true;
}

/** How a frame's function is named: scopes of the minified file, else the older declaration scan over its text. */
interface FunctionNames {
  scopes?: ScopeNames;
  minified?: SourceText;
}

/** Positions remembered per map (the same errors come back event after event). */
const MEMO_ENTRIES = 2000;
/** What the memo may hold per map, charged to the cache with the map. */
export const MEMO_BYTES = MEMO_ENTRIES * 1024;
const memos = new WeakMap<ParsedSourceMap, Map<string, Resolved | null>>();

interface FoundMap {
  /** The file (or inline map) and the name it is known by. */
  name: string;
  parsed: Parsed<ParsedSourceMap>;
  minified?: ArtifactFile;
}

type Lookup = { found: FoundMap } | MissingMap | { skip: true };

const LONG_LINE = 1000;
const LINE_WINDOW = 300;

export async function symbolicateJavaScript(services: Services, job: EventJob): Promise<void> {
  const groups = new Map<string, number[]>();
  const codeFiles = codeFileDebugIds(job.event);
  job.raw.forEach((frame, i) => {
    if (!isJavaScriptFrame(frame)) return;
    const key = `${frameDebugId(frame, codeFiles) ?? ''}\n${frame.abs_path ?? ''}\n${frame.filename ?? ''}`;
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  });
  await Promise.all([...groups.values()].map((indexes) => symbolicateGroup(services, job, indexes, codeFiles)));
}

async function symbolicateGroup(services: Services, job: EventJob, indexes: number[], codeFiles: Map<string, string> | undefined): Promise<void> {
  const first = job.raw[indexes[0]];
  const path = (first.abs_path ?? first.filename) as string;
  let lookup: Lookup;
  try {
    lookup = await findSourceMap(services, job, first, frameDebugId(first, codeFiles));
  } catch (error) {
    lookup = { missing: `the artifact lookup for ${path} failed: ${(error as Error).message}`, subject: path, everyFrame: false };
  }
  if ('skip' in lookup) return;
  if ('missing' in lookup) {
    noteRawFrames(job, indexes, lookup);
    services.countFrames('javascript', 'unresolved', indexes.length);
    return;
  }
  const { name, parsed } = lookup.found;
  if (!parsed.ok) {
    const type = parsed.transient ? 'missing_source_map' : 'malformed_source_map';
    const message = parsed.transient ? `the source map ${name} ${parsed.message}` : `the source map ${name} could not be parsed: ${parsed.message}`;
    for (const i of indexes) job.errors.add(type, i, name, message);
    services.countFrames('javascript', 'unresolved', indexes.length);
    return;
  }
  const map = parsed.value;
  const found = lookup.found.minified;
  const scopes = found ? await minifiedScopes(services, found) : undefined;
  const minified = scopes === undefined && found && indexes.some((i) => job.raw[i].function) ? await minifiedText(services, found) : undefined;
  const names: FunctionNames = { scopes, minified };
  let memo = memos.get(map);
  if (memo === undefined) memos.set(map, (memo = new Map()));
  let resolvedCount = 0;
  for (const i of indexes) {
    const frame = job.raw[i];
    const key = `${frame.lineno}:${frame.colno}:${scopes ? 's' : minified ? 'm' : ''}:${frame.function ?? ''}`;
    let resolved = memo.get(key);
    if (resolved === undefined) {
      resolved = resolve(map, name, frame, names, services.config.context_lines) ?? null;
      if (memo.size >= MEMO_ENTRIES) memo.clear();
      memo.set(key, resolved);
    }
    if (resolved === null) {
      job.errors.add('frame_out_of_range', i, name, `${path}:${frame.lineno}:${frame.colno} is outside what the source map ${name} covers`);
      continue;
    }
    job.replaced[i] = [applyResolved(frame, resolved)];
    resolvedCount++;
  }
  services.countFrames('javascript', 'symbolicated', resolvedCount);
  if (resolvedCount < indexes.length) services.countFrames('javascript', 'unresolved', indexes.length - resolvedCount);
}

function applyResolved(frame: StackFrame, r: Resolved): StackFrame {
  // Object.assign, not `{ ...frame, ...r.fields }`: V8 runs a second spread through a slow path,
  // many times slower a frame (bench/README.md).
  const out: StackFrame = Object.assign({}, frame, r.fields);
  if (r.anonymous) delete out.function;
  if (r.vendor && frame.in_app === undefined) out.in_app = false;
  return out;
}

function resolve(map: ParsedSourceMap, mapName: string, frame: StackFrame, names: FunctionNames, contextLines: number): Resolved | undefined {
  const position = map.originalPosition(frame.lineno as number, frame.colno as number);
  if (position === undefined) return undefined;
  const fields: Resolved['fields'] = {
    abs_path: absoluteSource(position.source, mapName),
    filename: displayPath(position.source),
    lineno: position.line,
    colno: position.column + 1,
  };
  let anonymous = false;
  const scoped = names.scopes?.functionAt(map, frame.lineno as number, frame.colno as number);
  if (typeof scoped === 'string') fields.function = scoped;
  else if (scoped === null) anonymous = true;
  else if (frame.function !== undefined && names.minified !== undefined) {
    // Outside every function scope, or no scopes (file too large or unparsable): the declaration scan.
    const name = originalFunctionName({ map, minified: names.minified }, frame.lineno as number, frame.colno as number, frame.function);
    if (name !== undefined) fields.function = name;
  }
  addContext(fields, map, position, contextLines);
  const resolved: Resolved = { fields, vendor: isVendorSource(position.source) };
  if (anonymous) resolved.anonymous = true;
  return resolved;
}

function addContext(fields: Resolved['fields'], map: ParsedSourceMap, position: OriginalPosition, n: number): void {
  const text = map.sourceText(position.sourceIndex);
  if (text === undefined) return;
  const line = text.line(position.line);
  if (line === undefined) return;
  const pre: string[] = [];
  for (let l = Math.max(1, position.line - n); l < position.line; l++) pre.push(clip(text.line(l) ?? '', 0));
  const post: string[] = [];
  const last = Math.min(text.lineCount, position.line + n);
  for (let l = position.line + 1; l <= last; l++) post.push(clip(text.line(l) ?? '', 0));
  fields.context_line = clip(line, position.column);
  fields.pre_context = pre;
  fields.post_context = post;
}

/** A line longer than LONG_LINE is cut to LINE_WINDOW characters around `column`, with `…` marks. */
function clip(line: string, column: number): string {
  if (line.length <= LONG_LINE) return line;
  const start = Math.max(0, Math.min(column - LINE_WINDOW / 2, line.length - LINE_WINDOW));
  const end = start + LINE_WINDOW;
  return `${start > 0 ? '…' : ''}${line.slice(start, end)}${end < line.length ? '…' : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Finding the map
// ---------------------------------------------------------------------------------------------

/** debug_meta's `sourcemap` images by code_file (undefined when there are none). */
function codeFileDebugIds(event: ErrorEvent): Map<string, string> | undefined {
  let out: Map<string, string> | undefined;
  for (const image of event.debug_meta?.images ?? []) {
    if (image.type === 'sourcemap' && image.code_file && image.debug_id) (out ??= new Map()).set(image.code_file, normalizeUuid(image.debug_id));
  }
  return out;
}

function frameDebugId(frame: StackFrame, codeFiles: Map<string, string> | undefined): string | undefined {
  if (frame.debug_id) return normalizeUuid(frame.debug_id);
  if (codeFiles === undefined) return undefined;
  return (
    (frame.abs_path !== undefined ? codeFiles.get(frame.abs_path) : undefined) ?? (frame.filename !== undefined ? codeFiles.get(frame.filename) : undefined)
  );
}

async function findSourceMap(services: Services, job: EventJob, frame: StackFrame, debugId: string | undefined): Promise<Lookup> {
  const { finder } = services;
  const scope = job.scope;
  const path = (frame.abs_path ?? frame.filename) as string;
  let map: ArtifactFile | undefined;
  let minified: ArtifactFile | undefined;
  if (debugId !== undefined) {
    const files = await finder.byDebugId(scope, debugId, ['source_map', 'minified_source']);
    map = files.find((f) => f.type === 'source_map');
    minified = files.find((f) => f.type === 'minified_source');
  }
  const tried: string[] = [];
  if (map === undefined) {
    const names: string[] = [];
    for (const p of [frame.abs_path, frame.filename]) if (p) for (const n of candidateNames(p)) if (!names.includes(n)) names.push(n);
    const mapNames = names.map((n) => `${n}.map`);
    tried.push(...names);
    const files = [...(await finder.byNames(scope, [...names, ...mapNames], ['source_map', 'minified_source']))];
    const named = (type: ArtifactFile['type'], wanted: readonly string[]) => {
      for (const n of wanted) {
        const hit = files.find((f) => f.type === type && f.name === n);
        if (hit) return hit;
      }
      return undefined;
    };
    minified ??= named('minified_source', names);
    if (minified !== undefined) {
      const url = minified.source_mapping_url;
      if (url?.startsWith('data:')) {
        const bytes = dataUrlBytes(url);
        const inlineName = `${minified.name} (inline map)`;
        if (bytes === undefined) return { found: { name: inlineName, parsed: { ok: false, message: 'the data: URL cannot be decoded' } } };
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        return { found: { name: inlineName, minified, parsed: await parseMap(services, { name: inlineName, sha256 }, () => Promise.resolve(bytes)) } };
      }
      // The map the minified file names, then the `<name>.map` next to it: one more query for
      // the names the first one did not ask for.
      const wanted = [...(url ? mapUrlNames(minified.name, url) : []), `${minified.name}.map`];
      const more = wanted.filter((n) => !names.includes(n) && !mapNames.includes(n));
      if (more.length > 0) {
        tried.push(...more);
        files.push(...(await finder.byNames(scope, more, ['source_map'])));
      }
      map = named('source_map', wanted);
    }
    map ??= named('source_map', mapNames) ?? named('source_map', names);
  }
  if (map === undefined) {
    // Quiet for files nothing promised a map for (server code run as written, vendored modules),
    // unless the release has uploads: why-raw.ts.
    const expected = debugId !== undefined || minified !== undefined || (SCHEME_AND_HOST.test(path) && !VENDOR_PATH.test(path));
    // Only built JavaScript of the team's own counts: not node_modules, not TypeScript run as written.
    const ownOutput = !VENDOR_PATH.test(path) && BUILT_JAVASCRIPT.test(path.replace(QUERY_OR_FRAGMENT, ''));
    const why = missingMap({ path, debugId, minified, tried, scopeHasUploads: ownOutput && (await finder.scopeHasFiles(scope)) }, expected);
    return why ?? { skip: true };
  }
  const file = map;
  return { found: { name: file.name, minified, parsed: await parseMap(services, file, () => services.finder.read(file)) } };
}

function parseMap(services: Services, file: Pick<ArtifactFile, 'name' | 'sha256'>, read: () => Promise<Uint8Array>): Promise<Parsed<ParsedSourceMap>> {
  return parsedArtifact(services, 'sourcemap', file, read, (decoded) => {
    const parsed = new ParsedSourceMap(decoded);
    return { value: parsed, bytes: parsed.bytes + MEMO_BYTES };
  });
}

/** The minified file's text, for function names (undefined if it cannot be read). */
async function minifiedText(services: Services, file: ArtifactFile): Promise<SourceText | undefined> {
  const parsed = await services.cache.get(`minified_source:${file.sha256}`, async () => {
    const started = performance.now();
    let bytes: Buffer;
    try {
      bytes = await services.finder.read(file);
    } catch (error) {
      throw new LoadError(`could not be read: ${(error as Error).message}`, false);
    }
    const text = new SourceText(bytes.toString('utf8'));
    services.observeParse('minified_source', (performance.now() - started) / 1000, true);
    // The string (one or two bytes a character) and its line index.
    return { value: text, bytes: 2 * bytes.byteLength + 4 * 1024 };
  });
  return parsed.ok ? parsed.value : undefined;
}

/**
 * The function scopes of a minified file, parsed in a worker and cached by content; undefined
 * when it is larger than `scope_max_bytes` or does not parse (the declaration scan is used then).
 */
async function minifiedScopes(services: Services, file: ArtifactFile): Promise<ScopeNames | undefined> {
  if (file.size > services.config.scope_max_bytes) return undefined;
  const parsed = await parsedArtifact(
    services,
    'scopes',
    file,
    () => services.finder.read(file),
    (index) => {
      const names = new ScopeNames(index);
      return { value: names, bytes: names.bytes };
    },
  );
  return parsed.ok ? parsed.value : undefined;
}
