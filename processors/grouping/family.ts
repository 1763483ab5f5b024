// Which language a frame is in decides how its names are normalized (and what `family:` matches
// in grouping rules). The frame's own platform wins, then the event's, then the file's extension.
import type { StackFrame } from '../../src/records/event.js';

export type Family = 'javascript' | 'native' | 'jvm' | 'python' | 'go' | 'other';

const BY_PLATFORM: Record<string, Family> = {
  javascript: 'javascript',
  node: 'javascript',
  typescript: 'javascript',
  java: 'jvm',
  kotlin: 'jvm',
  scala: 'jvm',
  groovy: 'jvm',
  clojure: 'jvm',
  android: 'jvm',
  python: 'python',
  go: 'go',
  native: 'native',
  c: 'native',
  cpp: 'native',
  'c++': 'native',
  cocoa: 'native',
  objc: 'native',
  swift: 'native',
  rust: 'native',
};

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
  const platform = frame.platform ?? eventPlatform;
  if (platform !== undefined) {
    const family = BY_PLATFORM[platform.toLowerCase()];
    if (family !== undefined) return family;
  }
  const file = frame.filename ?? frame.abs_path;
  if (file !== undefined) {
    const extension = EXTENSION.exec(file)?.[1].toLowerCase();
    const family = extension === undefined ? undefined : BY_EXTENSION[extension];
    if (family !== undefined) return family;
    if (/^(?:https?|node|webpack|file|blob|app):/i.test(file)) return 'javascript';
  }
  return frame.instruction_addr !== undefined ? 'native' : 'other';
}
