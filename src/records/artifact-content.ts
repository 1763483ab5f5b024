// What an uploaded file is, and whether symbolication can use it: its type (given, or told from its
// name and content), checked by that type, and what the lookups need from it (its debug id, a
// minified source's sourceMappingURL). Files are read from disk (an upload's staging files), by
// line where the format allows, so that a large file is not held whole: only a source map, which is
// one JSON document, is.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { v5 as uuidv5 } from 'uuid';
import { ARTIFACT_TYPES, type ArtifactType } from './artifact.js';
import { checkSourceMap } from './source-map.js';
import { checkSourceMapInWorker, OFF_THREAD_BYTES } from './source-map-worker.js';
import { normalizeUuid, UUID_PATTERN as UUID } from './uuid.js';

export interface ArtifactFacts {
  type: ArtifactType;
  debug_id: string | null;
  source_mapping_url: string | null;
}

/** `field`: what is wrong — the file's name, its type, or its content. */
export type ArtifactCheck = { ok: true; facts: ArtifactFacts } | { ok: false; field: 'name' | 'type' | 'content'; message: string };

/** Content types that say what a file is (multipart parts); any other (octet-stream, text/plain) leaves it to detection. */
const TYPES_BY_MEDIA_TYPE: Record<string, ArtifactType> = {
  'application/json': 'source_map',
  'application/x-sourcemap': 'source_map',
  'application/source-map': 'source_map',
  'application/javascript': 'minified_source',
  'application/x-javascript': 'minified_source',
  'text/javascript': 'minified_source',
  'application/x-proguard': 'proguard',
  'text/x-proguard': 'proguard',
  'application/x-breakpad': 'breakpad',
  'text/x-breakpad': 'breakpad',
};

export function typeOfMediaType(contentType: string | undefined): ArtifactType | undefined {
  return contentType ? TYPES_BY_MEDIA_TYPE[contentType.split(';')[0].trim().toLowerCase()] : undefined;
}

export function isArtifactType(value: string): value is ArtifactType {
  return (ARTIFACT_TYPES as readonly string[]).includes(value);
}

/** The longest stored name: a URL, `~/path` or file name. */
export const MAX_NAME_LENGTH = 2048;

export function checkName(name: string): string | undefined {
  if (name === '') return 'is required: every file needs a name (a URL, ~/path or file name)';
  if (name.length > MAX_NAME_LENGTH) return `is longer than ${MAX_NAME_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters';
  return undefined;
}

/** Checks the file at `path` as `declared`, or as the type its name and content tell. */
export async function checkArtifact(name: string, path: string, declared: ArtifactType | undefined): Promise<ArtifactCheck> {
  const type = declared ?? (await detectType(name, path));
  if (!type)
    return {
      ok: false,
      field: 'type',
      message:
        'cannot tell what kind of file this is: name it .map, .js/.mjs/.cjs, .sym or .txt (ProGuard), or give its type ' + `(${ARTIFACT_TYPES.join(', ')})`,
    };
  const checked = await CHECKS[type](path);
  if (typeof checked === 'string') return { ok: false, field: 'content', message: `not a valid ${LABELS[type]}: ${checked}` };
  return { ok: true, facts: { type, debug_id: checked.debugId, source_mapping_url: checked.sourceMappingUrl ?? null } };
}

const LABELS: Record<ArtifactType, string> = {
  source_map: 'source map',
  minified_source: 'minified source',
  proguard: 'ProGuard mapping file',
  breakpad: 'Breakpad symbol file',
};

type Checked = { debugId: string | null; sourceMappingUrl?: string | null } | string;

const CHECKS: Record<ArtifactType, (path: string) => Promise<Checked>> = {
  source_map: checkSourceMapFile,
  minified_source: checkMinifiedSource,
  proguard: checkProguard,
  breakpad: checkBreakpad,
};

/** By extension (a URL's query and fragment aside), else by the first bytes. */
async function detectType(name: string, path: string): Promise<ArtifactType | undefined> {
  const base = name.replace(/[?#].*$/, '').toLowerCase();
  if (base.endsWith('.map')) return 'source_map';
  if (/\.(?:js|mjs|cjs)$/.test(base)) return 'minified_source';
  if (base.endsWith('.sym')) return 'breakpad';
  const head = (await readHead(path, 64 * 1024)).replace(/^\uFEFF/, '');
  if (head.startsWith('MODULE ')) return 'breakpad';
  if (/^\s*(?:\{|\)\]\}')/.test(head)) return 'source_map';
  if (base.endsWith('.txt')) return 'proguard';
  return looksLikeProguard(head) ? 'proguard' : undefined;
}

/** Whether a file's first bytes look like a ProGuard mapping: its first line that is no comment is a class line. */
export function looksLikeProguard(head: string): boolean {
  const first = head.split('\n').find((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  return first !== undefined && PROGUARD_CLASS.test(first.trimEnd());
}

/** The first `bytes` of a file, as text. */
export async function readHead(path: string, bytes: number): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function checkSourceMapFile(path: string): Promise<Checked> {
  if ((await stat(path)).size >= OFF_THREAD_BYTES) return checkSourceMapInWorker(path);
  // A map may start with `)]}'` and a line break, against cross-site script inclusion (ECMA-426).
  const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '').replace(/^\)\]\}'[^\n]*\n/, '');
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch (error) {
    return `it is not JSON (${(error as Error).message})`;
  }
  const checked = checkSourceMap(map);
  return checked.ok ? { debugId: checked.debugId } : checked.message;
}

const SOURCE_MAPPING_URL = /^\s*\/\/[#@]\s*sourceMappingURL=(\S*)\s*$/;
const DEBUG_ID_COMMENT = /^\s*\/\/#\s*debugId=(\S*)\s*$/;
/** A stored sourceMappingURL is at most this long; an inline map (`data:` URL) is stored as its head up to the comma. */
const MAX_URL_LENGTH = 8192;

/** The last `//# sourceMappingURL=` and `//# debugId=` comments, on lines of their own. */
async function checkMinifiedSource(path: string): Promise<Checked> {
  let url: string | null = null;
  let debugId: string | null = null;
  for await (const line of lines(path)) {
    if (!line.text.includes('//')) continue;
    const mapping = SOURCE_MAPPING_URL.exec(line.text);
    if (mapping) {
      url = mapping[1];
      if (url.startsWith('data:')) url = url.slice(0, url.indexOf(',') + 1 || undefined);
      else if (line.truncated || url.length > MAX_URL_LENGTH) return `line ${line.number}: its sourceMappingURL is longer than ${MAX_URL_LENGTH} characters`;
      continue;
    }
    const id = DEBUG_ID_COMMENT.exec(line.text);
    if (id) {
      if (!UUID.test(id[1])) return `line ${line.number}: its debugId comment must carry a UUID, got ${JSON.stringify(id[1].slice(0, 60))}`;
      debugId = normalizeUuid(id[1]);
    }
  }
  return { debugId, sourceMappingUrl: url || null };
}

/** `a.b.C -> x:` (the original class, the obfuscated one). */
const PROGUARD_CLASS = /^[^\s#]\S* -> \S+:$/;
/**
 * An indented member: a field `type name -> obfuscated`, or a method
 * `[start:end:]type [class.]name(args)[:origStart[:origEnd]] -> obfuscated`.
 */
const PROGUARD_MEMBER = /^\s+(?:\d+:\d+:)?\S+ [^\s(]+(?:\([^)]*\)(?::\d+(?::\d+)?)?)? -> \S+$/;
const R8_MAPPING_ID = 'com.android.tools.r8.mapping';

/** ProGuard's namespace for mapping-file UUIDs, as sentry-cli (rust-proguard) makes them: UUIDv5 of "guardsquare.com" in the DNS namespace. */
export const PROGUARD_NAMESPACE = uuidv5('guardsquare.com', uuidv5.DNS);

/**
 * Class lines and the member lines under them, comments (`#`) and blank lines. The debug id is the
 * R8 header's `pg_map_id` when that is a UUID, else the UUIDv5 of the whole file in
 * PROGUARD_NAMESPACE — what `sentry-cli upload-proguard` computes, so an app built with it
 * finds its mapping.
 */
async function checkProguard(path: string): Promise<Checked> {
  const sha1 = createHash('sha1').update(Buffer.from(PROGUARD_NAMESPACE.replaceAll('-', ''), 'hex'));
  let classes = 0;
  let mapId: string | undefined;
  for await (const line of lines(path, (chunk) => sha1.update(chunk))) {
    const text = line.text.trimEnd();
    const trimmed = text.trimStart();
    if (trimmed === '') continue;
    if (trimmed.startsWith('#')) {
      mapId ??= r8MapId(trimmed.slice(1).trim());
      continue;
    }
    if (line.truncated) return `line ${line.number} is longer than ${MAX_LINE} bytes`;
    if (PROGUARD_CLASS.test(text)) classes++;
    else if (!PROGUARD_MEMBER.test(text))
      return `line ${line.number} is neither a class line (a.b.C -> x:) nor an indented member line (type name -> x): ${JSON.stringify(shorten(text))}`;
    else if (classes === 0) return `line ${line.number}: a member line before any class line`;
  }
  if (classes === 0) return 'it has no class lines (a.b.C -> x:)';
  if (mapId !== undefined && UUID.test(mapId)) return { debugId: normalizeUuid(mapId) };
  return { debugId: uuidFromSha1(sha1.digest()) };
}

/** `pg_map_id` from R8's JSON header (`{"id":"com.android.tools.r8.mapping",…}`) or its `pg_map_id: …` line. */
function r8MapId(comment: string): string | undefined {
  if (comment.startsWith('{')) {
    try {
      const header = JSON.parse(comment) as Record<string, unknown>;
      if (header.id === R8_MAPPING_ID && typeof header.pg_map_id === 'string') return header.pg_map_id;
    } catch {
      // another comment that happens to start with a brace
    }
    return undefined;
  }
  const line = /^pg_map_id:\s*(\S+)$/.exec(comment);
  return line?.[1];
}

/** RFC 9562 version 5: the first 16 bytes of the SHA-1 of namespace and name, version and variant set. */
function uuidFromSha1(digest: Buffer): string {
  const bytes = Buffer.from(digest.subarray(0, 16));
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return normalizeUuid(bytes.toString('hex'));
}

const BREAKPAD_MODULE = /^MODULE (\S+) (\S+) ([0-9A-Fa-f]{32,40}) (.+)$/;
const BREAKPAD_RECORD = /^(?:FILE|FUNC|PUBLIC|STACK|INFO|INLINE|INLINE_ORIGIN)(?: |$)/;
const BREAKPAD_LINE = /^[0-9A-Fa-f]+ [0-9A-Fa-f]+ -?\d+ \d+$/;

/** `MODULE os arch id name` first (the id, lower case, is the debug id), then Breakpad records. */
async function checkBreakpad(path: string): Promise<Checked> {
  let debugId: string | undefined;
  for await (const line of lines(path)) {
    const text = line.number === 1 ? line.text.replace(/^\uFEFF/, '') : line.text;
    if (debugId === undefined) {
      const module = BREAKPAD_MODULE.exec(text);
      if (!module) return `line 1 must be MODULE <os> <arch> <id> <name>, got ${JSON.stringify(shorten(text))}`;
      debugId = module[3].toLowerCase();
      continue;
    }
    if (text === '' || BREAKPAD_RECORD.test(text) || BREAKPAD_LINE.test(text)) continue;
    return `line ${line.number} is not a Breakpad record: ${JSON.stringify(shorten(text))}`;
  }
  if (debugId === undefined) return 'it is empty: line 1 must be MODULE <os> <arch> <id> <name>';
  return { debugId };
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** Bytes of a line kept for checking; the rest of a longer line is skipped (and the line marked truncated). */
const MAX_LINE = 64 * 1024;
const NEWLINE = 10;

interface Line {
  /** 1-based. */
  number: number;
  /** The line without its line break (at most MAX_LINE bytes of it). */
  text: string;
  truncated: boolean;
}

/** The file's lines, read in chunks (each also handed to `onChunk`), holding at most MAX_LINE bytes of one. */
async function* lines(path: string, onChunk?: (chunk: Buffer) => void): AsyncGenerator<Line> {
  let kept: Buffer[] = [];
  let keptBytes = 0;
  let truncated = false;
  let number = 0;
  const take = (part: Buffer) => {
    const room = MAX_LINE - keptBytes;
    if (part.length > room) truncated = true;
    if (room > 0) {
      const piece = part.subarray(0, room);
      kept.push(piece);
      keptBytes += piece.length;
    }
  };
  const finish = (): Line => {
    const text = Buffer.concat(kept, keptBytes).toString('utf8').replace(/\r$/, '');
    const line = { number: ++number, text, truncated };
    kept = [];
    keptBytes = 0;
    truncated = false;
    return line;
  };
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    onChunk?.(chunk);
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      take(chunk.subarray(start, end));
      yield finish();
      start = end + 1;
    }
    take(chunk.subarray(start));
  }
  if (keptBytes > 0 || truncated) yield finish();
}
