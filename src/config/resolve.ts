// Turns the parsed YAML into a checked configuration: the service section through convict, every
// component section through its factory's schema, every pipeline reference against what exists.
// All problems are collected, each with its YAML path.
import { z } from 'zod';
import type { BudgetLimits } from '../engine/budget.js';
import { parseComponentId, type ComponentFactory, type ComponentId, type ComponentKind } from '../engine/component.js';
import { SIGNALS, type Signal } from '../engine/item.js';
import type { Registry } from '../engine/registry.js';
import { expandEnv } from './env.js';
import type { ConfigError } from './errors.js';
import type { ConfigSource } from './load.js';
import { loadServiceSection, type ServiceSettings } from './service-schema.js';

export interface ResolvedComponent {
  id: ComponentId;
  kind: ComponentKind;
  factory: ComponentFactory;
  config: unknown;
}

export interface ResolvedPipeline {
  /** `signal[/name]`. */
  id: string;
  signal: Signal;
  receivers: string[];
  processors: string[];
  exporters: string[];
  limits: BudgetLimits;
}

export interface ResolvedConfig {
  source: string;
  settings: ServiceSettings;
  components: Record<ComponentKind, Map<string, ResolvedComponent>>;
  pipelines: ResolvedPipeline[];
}

const SECTIONS: Record<ComponentKind, string> = { receiver: 'receivers', processor: 'processors', exporter: 'exporters' };

/**
 * About two seconds of what one instance commits per signal (see the README's Performance section):
 * past it a sender is better told to retry than left waiting in a queue, and memory stays bounded.
 * Bytes are request bytes; a parsed item takes several times its share of the body in memory.
 */
export const DEFAULT_BUDGETS: Record<Signal, BudgetLimits> = {
  events: { items: 2_000, bytes: 64 * 1024 * 1024 },
  traces: { items: 40_000, bytes: 128 * 1024 * 1024 },
  replays: { items: 1_000, bytes: 128 * 1024 * 1024 },
};

const pipelineSchema = z
  .object({
    receivers: z.array(z.string()).min(1, 'a pipeline needs at least one receiver'),
    processors: z.array(z.string()).default([]),
    exporters: z.array(z.string()).min(1, 'a pipeline needs at least one exporter'),
    max_in_flight: z
      .object({
        items: z.number().int().positive().optional(),
        bytes: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export function resolveConfig(
  source: ConfigSource,
  registry: Registry,
  env: NodeJS.ProcessEnv,
): { config?: ResolvedConfig; errors: ConfigError[] } {
  const errors: ConfigError[] = [...source.errors];
  const root = expandEnv(source.raw, env, '', errors);
  if (!isRecord(root)) {
    errors.push({ path: '', message: 'the configuration must be a YAML mapping' });
    return { errors: withLines(errors, source) };
  }
  for (const key of Object.keys(root)) {
    if (!['receivers', 'processors', 'exporters', 'service'].includes(key))
      errors.push({ path: key, message: 'unknown top-level key (expected receivers, processors, exporters, service)' });
  }

  const components = {
    receiver: resolveComponents('receiver', root.receivers, registry, errors),
    processor: resolveComponents('processor', root.processors, registry, errors),
    exporter: resolveComponents('exporter', root.exporters, registry, errors),
  };

  const serviceSection = root.service ?? {};
  if (!isRecord(serviceSection)) errors.push({ path: 'service', message: 'must be a mapping' });
  const service = loadServiceSection(isRecord(serviceSection) ? serviceSection : {}, env);
  errors.push(...service.errors);

  const pipelines = resolvePipelines(isRecord(serviceSection) ? serviceSection.pipelines : undefined, components, errors);

  if (errors.length || !service.settings) return { errors: withLines(errors, source) };
  return { config: { source: source.name, settings: service.settings, components, pipelines }, errors: [] };
}

function resolveComponents(
  kind: ComponentKind,
  section: unknown,
  registry: Registry,
  errors: ConfigError[],
): Map<string, ResolvedComponent> {
  const out = new Map<string, ResolvedComponent>();
  const sectionName = SECTIONS[kind];
  if (section === undefined || section === null) return out;
  if (!isRecord(section)) {
    errors.push({ path: sectionName, message: 'must be a mapping of component ids to their settings' });
    return out;
  }
  for (const [text, value] of Object.entries(section)) {
    const path = `${sectionName}.${text}`;
    const id = parseComponentId(text);
    if (!id) {
      errors.push({ path, message: 'a component id is type[/name], e.g. duckdb or parquet/archive' });
      continue;
    }
    const factory = registry.get(kind, id.type);
    if (!factory) {
      const known = registry.list(kind).map((f) => f.type).join(', ');
      errors.push({ path, message: `unknown ${kind} type "${id.type}" (known: ${known})` });
      continue;
    }
    const parsed = factory.configSchema.safeParse(value ?? {});
    if (!parsed.success) {
      for (const issue of parsed.error.issues) errors.push({ path: joinPath(path, issue.path), message: issue.message });
      continue;
    }
    out.set(text, { id, kind, factory, config: parsed.data });
  }
  return out;
}

function resolvePipelines(
  section: unknown,
  components: Record<ComponentKind, Map<string, ResolvedComponent>>,
  errors: ConfigError[],
): ResolvedPipeline[] {
  const base = 'service.pipelines';
  if (!isRecord(section) || Object.keys(section).length === 0) {
    errors.push({ path: base, message: 'at least one pipeline is required' });
    return [];
  }
  const pipelines: ResolvedPipeline[] = [];
  for (const [id, value] of Object.entries(section)) {
    const path = `${base}.${id}`;
    const [signalText, name, ...rest] = id.split('/');
    const signal = SIGNALS.find((s) => s === signalText);
    if (!signal || rest.length || name === '') {
      errors.push({ path, message: `a pipeline id is signal[/name] with signal one of ${SIGNALS.join(', ')}` });
      continue;
    }
    const parsed = pipelineSchema.safeParse(value ?? {});
    if (!parsed.success) {
      for (const issue of parsed.error.issues) errors.push({ path: joinPath(path, issue.path), message: issue.message });
      continue;
    }
    const { receivers, processors, exporters, max_in_flight } = parsed.data;
    const check = (kind: ComponentKind, list: string[], key: string) => {
      list.forEach((ref, index) => {
        const component = components[kind].get(ref);
        const refPath = `${path}.${key}[${index}]`;
        if (!component) errors.push({ path: refPath, message: `no ${kind} "${ref}" is configured under ${SECTIONS[kind]}` });
        else if (!component.factory.signals.includes(signal))
          errors.push({ path: refPath, message: `${kind} "${ref}" does not handle ${signal} (it handles ${component.factory.signals.join(', ')})` });
      });
      const dup = list.find((ref, index) => list.indexOf(ref) !== index);
      if (dup) errors.push({ path: `${path}.${key}`, message: `"${dup}" is listed twice` });
    };
    check('receiver', receivers, 'receivers');
    check('processor', processors, 'processors');
    check('exporter', exporters, 'exporters');
    const limits = { ...DEFAULT_BUDGETS[signal], ...stripUndefined(max_in_flight ?? {}) };
    pipelines.push({ id, signal, receivers, processors, exporters, limits });
  }
  return pipelines;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function joinPath(base: string, parts: readonly PropertyKey[]): string {
  return parts.reduce<string>((path, part) => (typeof part === 'number' ? `${path}[${part}]` : `${path}.${String(part)}`), base);
}

function withLines(errors: ConfigError[], source: ConfigSource): ConfigError[] {
  return errors.map((e) => (e.line === undefined && e.path ? { ...e, line: source.lineOf(e.path) } : e));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
