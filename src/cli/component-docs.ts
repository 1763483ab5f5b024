// What `faultline components` prints and what the component READMEs' config tables say, both
// from the factories: their metadata and their zod config schemas (through z.toJSONSchema, with
// the descriptions given by `.describe()` / `.meta()` on each key), so neither can drift.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ComponentFactory, Stability } from '../engine/component.js';
import type { Signal } from '../engine/item.js';
import { packageRoot } from '../paths.js';
import { table } from './table.js';

export interface ConfigKey {
  /** Dotted for nested sections: `flush.max_rows`. */
  key: string;
  type: string;
  /** JSON of the default, or undefined when the key has none. */
  default?: string;
  description: string;
}

export interface ComponentDescription {
  kind: ComponentFactory['kind'];
  type: string;
  description: string;
  /** Per signal it handles; for a connector, `from` and `to` with the connector's stability. */
  signals: Partial<Record<Signal, Stability>>;
  /** Connectors only. */
  from?: Signal;
  to?: Signal;
  singleton: boolean;
  requires: Partial<Record<Signal, readonly string[]>>;
  provides: Partial<Record<Signal, readonly string[]>>;
  /** Processors only: types that must come after it. */
  before: readonly string[];
  /** Exporters only: the signals `service.storage` may name it for. */
  reads: readonly Signal[];
  metrics: readonly string[];
  config: ConfigKey[];
  /** Relative to the package root. */
  readme: string;
}

type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
};

export function describeComponent(factory: ComponentFactory): ComponentDescription {
  const signals: Partial<Record<Signal, Stability>> =
    factory.kind === 'connector' ? { [factory.from]: factory.stability, [factory.to]: factory.stability } : factory.stability;
  return {
    kind: factory.kind,
    type: factory.type,
    description: factory.description,
    signals,
    ...(factory.kind === 'connector' ? { from: factory.from, to: factory.to } : {}),
    singleton: factory.singleton ?? false,
    requires: factory.requires ?? {},
    provides: factory.provides ?? {},
    before: factory.kind === 'processor' ? (factory.before ?? []) : [],
    reads: factory.kind === 'exporter' ? (factory.reads ?? []) : [],
    metrics: factory.metrics ?? [],
    config: configKeys(factory.configSchema),
    readme: readmePath(factory),
  };
}

/** Where a component's README lives: `<kind>s/<type with - for _>/README.md` (http_api: receivers/http-api). */
export function readmePath(factory: Pick<ComponentFactory, 'kind' | 'type'>): string {
  return join(`${factory.kind}s`, factory.type.replace(/_/g, '-'), 'README.md');
}

/** The keys of a config schema, nested sections flattened to dotted keys. */
export function configKeys(schema: z.ZodType): ConfigKey[] {
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const keys: ConfigKey[] = [];
  const walk = (node: JsonSchema, prefix: string) => {
    for (const [name, property] of Object.entries(node.properties ?? {})) {
      const key = prefix + name;
      if (property.type === 'object' && property.properties) {
        walk(property, `${key}.`);
        continue;
      }
      keys.push({
        key,
        type: typeText(property),
        ...(property.default === undefined ? {} : { default: JSON.stringify(property.default) }),
        description: property.description ?? '',
      });
    }
  };
  walk(root, '');
  return keys;
}

function typeText(node: JsonSchema): string {
  if (node.enum) return `one of ${node.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (node.anyOf) return node.anyOf.map(typeText).join(' or ');
  const type = Array.isArray(node.type) ? node.type.join(' or ') : (node.type ?? 'any');
  if (type === 'array') return `list of ${node.items ? typeText(node.items) : 'any'}`;
  if (type !== 'integer' && type !== 'number') return type;
  const low = node.minimum ?? (node.exclusiveMinimum === undefined ? undefined : node.exclusiveMinimum + (type === 'integer' ? 1 : 0));
  const high = node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER ? node.maximum : undefined;
  if (low !== undefined && high !== undefined) return `${type} ${low}–${high}`;
  if (low !== undefined) return `${type} ≥ ${low}`;
  if (high !== undefined) return `${type} ≤ ${high}`;
  return type;
}

const START = '<!-- config-table:start -->';
const END = '<!-- config-table:end -->';

/** The Markdown table of a component's config keys (generated: `npm run docs:components`). */
export function configTable(keys: readonly ConfigKey[]): string {
  const lines = ['<!-- Generated from the config schema by `npm run docs:components`: edit the schema, not this table. -->'];
  if (keys.length === 0) return [...lines, 'No settings: `{}`.'].join('\n');
  lines.push('| Key | Type | Default | Description |', '|---|---|---|---|');
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  for (const key of keys)
    lines.push(`| \`${key.key}\` | ${cell(key.type)} | ${key.default === undefined ? '—' : `\`${cell(key.default)}\``} | ${cell(key.description)} |`);
  return lines.join('\n');
}

/** The README with the table between its markers replaced; throws when the markers are missing. */
export function withConfigTable(readme: string, table: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`no ${START} … ${END} markers`);
  return `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`;
}

/** Each component's README path (from the package root) with its text as it is and as it should be. */
export function componentReadmes(factories: readonly ComponentFactory[]): Array<{ path: string; current: string; expected: string }> {
  return factories.map((factory) => {
    const { readme, config } = describeComponent(factory);
    const current = readFileSync(join(packageRoot, readme), 'utf8');
    return { path: readme, current, expected: withConfigTable(current, configTable(config)) };
  });
}

/**
 * `faultline components`: a table of every component and its contracts, then each one's config
 * keys.
 */
export function componentsText(components: readonly ComponentDescription[]): string {
  const facts = (map: Partial<Record<Signal, readonly string[]>>) =>
    Object.entries(map)
      .filter(([, list]) => list.length)
      .map(([signal, list]) => `${signal}: ${list.join(', ')}`)
      .join('; ');
  const rows = components.map((c) => ({
    kind: c.kind,
    type: c.type,
    signals:
      c.kind === 'connector'
        ? `${c.from} -> ${c.to} (${c.signals[c.from as Signal]})`
        : Object.entries(c.signals)
            .map(([signal, stability]) => `${signal} (${stability})`)
            .join(', '),
    singleton: c.singleton ? 'yes' : '',
    requires: facts(c.requires),
    provides: facts(c.provides),
    before: c.before.join(', '),
    reads: c.reads.join(', '),
  }));
  const columns = ['kind', 'type', 'signals', 'singleton', 'requires', 'provides', 'before', 'reads'];
  const blocks = [
    table(
      rows,
      columns,
      columns.map((c) => c.toUpperCase()),
    ),
  ];
  for (const c of components) {
    const lines = [`${c.kind} ${c.type}: ${c.description}`, `  README: ${c.readme}`];
    if (c.metrics.length) lines.push(`  metrics: ${c.metrics.join(', ')}`);
    if (c.config.length === 0) lines.push('  config: none');
    else {
      const keys = c.config.map((k) => ({ ...k, default: k.default ?? '' }));
      const columns = ['key', 'type', 'default', 'description'];
      lines.push(
        ...table(
          keys,
          columns,
          columns.map((h) => h.toUpperCase()),
        )
          .split('\n')
          .map((line) => `  ${line}`),
      );
    }
    blocks.push(lines.join('\n'));
  }
  return `${blocks.join('\n\n')}\n`;
}
