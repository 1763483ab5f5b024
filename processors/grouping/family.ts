// Which language a frame is in decides how its names are normalized (and what `family:` matches
// in grouping rules). The frame's own platform wins, then the event's, then the file's extension.
import type { StackFrame } from '../../src/records/event.js';
import { memoize } from './memo.js';
import { familyForPlatform, type Family } from './rules/index.js';

export type { Family };

const BY_EXTENSION: Record<string, Family> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'javascript',
  tsx: 'javascript',
  mts: 'javascript',
  cts: 'javascript',
  vue: 'javascript',
  svelte: 'javascript',
  java: 'jvm',
  kt: 'jvm',
  scala: 'jvm',
  groovy: 'jvm',
  py: 'python',
  go: 'go',
  c: 'native',
  cc: 'native',
  cpp: 'native',
  cxx: 'native',
  h: 'native',
  hpp: 'native',
  m: 'native',
  mm: 'native',
  rs: 'native',
  swift: 'native',
};

const EXTENSION = /\.([A-Za-z0-9+]+)(?:[?#].*)?$/s;

export function familyOf(frame: StackFrame, eventPlatform: string | undefined): Family {
  const byPlatform = familyForPlatform(frame.platform ?? eventPlatform);
  if (byPlatform !== 'other') return byPlatform;
  const file = frame.filename ?? frame.abs_path;
  const byFile = file === undefined ? 'other' : familyOfFile(file);
  if (byFile !== 'other') return byFile;
  return frame.instruction_addr !== undefined ? 'native' : 'other';
}

const SCRIPT_URL = /^(?:https?|node|webpack|file|blob|app):/i;

const familyOfFile = memoize((file: string): Family => {
  const extension = EXTENSION.exec(file)?.[1].toLowerCase();
  const family = extension === undefined ? undefined : BY_EXTENSION[extension];
  if (family !== undefined) return family;
  return SCRIPT_URL.test(file) ? 'javascript' : 'other';
});
