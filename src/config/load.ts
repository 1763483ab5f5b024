// Reads the YAML configuration: the embedded default or --config FILE.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import { packageRoot } from '../paths.js';
import type { ConfigError } from './errors.js';

export interface ConfigSource {
  /** File path, for messages. */
  name: string;
  raw: unknown;
  /** 1-based line of a YAML path such as `service.pipelines.events.exporters[0]`, where it exists. */
  lineOf(path: string): number | undefined;
  errors: ConfigError[];
}

export const DEFAULT_CONFIG_PATH = resolve(packageRoot, 'config/default.yaml');

export function readConfigFile(file: string | undefined): ConfigSource {
  const name = file ? resolve(file) : DEFAULT_CONFIG_PATH;
  let text: string;
  try {
    text = readFileSync(name, 'utf8');
  } catch (error) {
    return { name, raw: {}, lineOf: () => undefined, errors: [{ path: '', message: `cannot read ${name}: ${(error as Error).message}` }] };
  }
  return parseConfigText(text, name);
}

export function parseConfigText(text: string, name: string): ConfigSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const errors: ConfigError[] = doc.errors.map((e) => ({
    path: '',
    message: e.message.split('\n')[0],
    line: lineCounter.linePos(e.pos[0]).line,
  }));
  const raw: unknown = errors.length ? {} : (doc.toJS() ?? {});
  return { name, raw, lineOf: (path) => lineOfPath(doc, lineCounter, path), errors };
}

function lineOfPath(doc: Document, lineCounter: LineCounter, path: string): number | undefined {
  const keys = path
    .split(/\.|\[(\d+)\]/)
    .filter((part) => part !== undefined && part !== '')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  for (let depth = keys.length; depth > 0; depth--) {
    const node: unknown = doc.getIn(keys.slice(0, depth), true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return undefined;
}
