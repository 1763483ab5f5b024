// Turns the parsed YAML into a checked configuration: the service section through convict, every
// component section through its factory's schema, every pipeline reference against what exists,
// and the factories' contracts (src/engine/component.ts) against the order of every pipeline:
// what a component requires must be provided before it, `before` orderings, singletons,
// connectors used at both ends, and the exporters `service.storage` reads from.
// All problems are collected, each with its YAML path.
import { z } from 'zod';
import type { BudgetLimits } from '../engine/budget.js';
import {
  COMPONENT_KINDS,
  factorySignals,
  parseComponentId,
  type ComponentFactory,
  type ComponentId,
  type ComponentKind,
  type ConfigDefault,
} from '../engine/component.js';
import { SIGNALS, type Signal } from '../engine/item.js';
import type { Registry } from '../engine/registry.js';
import { expandEnv } from './env.js';
import { resolveExtensions, type ResolvedExtension } from './extensions.js';
import type { ConfigError } from './errors.js';
import type { ConfigSource } from './load.js';
import { loadServiceSection, storageEnv, type ServiceSettings, type StorageSetting } from './service-schema.js';
import { unknownKeyMessage, zodObjectKeys } from './suggest.js';

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
  /** Receiver and connector ids. */
  receivers: string[];
  processors: string[];
  /** Exporter and connector ids. */
  exporters: string[];
  limits: BudgetLimits;
}

export interface ResolvedConfig {
  source: string;
  settings: ServiceSettings;
  components: Record<ComponentKind, Map<string, ResolvedComponent>>;
  pipelines: ResolvedPipeline[];
  /**
   * Per signal, the ids of the exporters (under `exporters:`) that the read endpoints read from,
   * in the order given: `service.storage.<signal>`, else the first exporter of the signal's
   * pipelines whose factory `reads` it. A signal nothing can serve reads of is absent.
   */
  readSources: Partial<Record<Signal, string[]>>;
  /** What is accepted but should change (a deprecated key), each with its YAML path: the service logs them at start, `validate` prints them. */
  warnings: ConfigError[];
  /** The extensions to run (`service.extensions`), dependencies first. */
  extensions: ResolvedExtension[];
}

type Components = Record<ComponentKind, Map<string, ResolvedComponent>>;

const SECTIONS: Record<ComponentKind, string> = { receiver: 'receivers', processor: 'processors', exporter: 'exporters', connector: 'connectors' };
const TOP_LEVEL = [...COMPONENT_KINDS.map((kind) => SECTIONS[kind]), 'extensions', 'service'];

/**
 * About two seconds of what one instance commits per signal (see bench/README.md for the rates):
 * past it a sender is better told to retry than left waiting in a queue, and memory stays bounded.
 * Bytes estimate memory (a request reserves its body times 4, src/http/intake.ts); the events'
 * 32 MiB keeps 500 concurrent 200 KB uploads under the 500 MB the hardening issue asks for, while
 * ordinary 6 KB events are limited by the item count first.
 */
export const DEFAULT_BUDGETS: Record<Signal, BudgetLimits> = {
  events: { items: 2_000, bytes: 32 * 1024 * 1024 },
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

export function resolveConfig(source: ConfigSource, registry: Registry, env: NodeJS.ProcessEnv): { config?: ResolvedConfig; errors: ConfigError[] } {
  // A file that cannot be read or parsed has nothing else to say: every other error would follow from it.
  if (source.errors.length) return { errors: withLines(source.errors, source) };
  const errors: ConfigError[] = [];
  const root = expandEnv(source.raw, env, '', errors);
  if (!isRecord(root)) {
    errors.push({ path: '', message: 'the configuration must be a YAML mapping' });
    return { errors: withLines(errors, source) };
  }
  for (const key of Object.keys(root)) {
    if (!TOP_LEVEL.includes(key)) errors.push({ path: key, message: unknownKeyMessage(key, TOP_LEVEL) });
  }

  const serviceSection = root.service ?? {};
  if (!isRecord(serviceSection)) errors.push({ path: 'service', message: 'must be a mapping' });

  // Components configured with errors (already reported) are not reported again as missing where they are used.
  const invalid = new Set<string>();
  const warnings: ConfigError[] = [];
  const origins = { env, service: isRecord(serviceSection) ? serviceSection : {}, warnings };
  const components = Object.fromEntries(
    COMPONENT_KINDS.map((kind) => [kind, resolveComponents(kind, root[SECTIONS[kind]], registry, errors, invalid, origins)]),
  ) as Components;
  checkConnectorIds(components, errors);

  const { extensions: listedExtensions, ...serviceKeys } = isRecord(serviceSection) ? serviceSection : {};
  const service = loadServiceSection(serviceKeys, env);
  errors.push(...service.errors);

  const pipelinesSection = isRecord(serviceSection) ? serviceSection.pipelines : undefined;
  const pipelines = resolvePipelines(pipelinesSection, components, registry, errors, invalid);
  checkConnectorsUsed(components, pipelines, errors);
  checkCycles(components, pipelines, errors);
  const readSources = service.storage ? resolveReadSources(service.storage, components, pipelines, env, errors, invalid, bothAlias(registry)) : {};

  const hasPipelines = isRecord(pipelinesSection) && Object.keys(pipelinesSection).length > 0;
  const explicitReads = service.storage && SIGNALS.some((signal) => present(service.storage?.[signal]));
  if (!hasPipelines && !explicitReads)
    errors.push({
      path: 'service.pipelines',
      message: 'at least one pipeline is required (or, for a read-only node, service.storage naming the exporters to read from)',
    });

  if (service.settings) checkListeners(components, pipelines, service.settings, errors);
  if (service.settings) checkOwnership(components, service.settings, errors);

  const extensions = resolveExtensions(root.extensions, listedExtensions, usedComponents(components, pipelines, readSources), registry, errors);

  if (errors.length || !service.settings) return { errors: withLines(errors, source) };
  return {
    config: { source: source.name, settings: service.settings, components, pipelines, readSources, warnings: withLines(warnings, source), extensions },
    errors: [],
  };
}

/** The components that will run: in a pipeline, or read from by service.storage. */
function usedComponents(components: Components, pipelines: ResolvedPipeline[], readSources: Partial<Record<Signal, string[]>>) {
  const refs = new Set([...pipelines.flatMap((p) => [...p.receivers, ...p.processors, ...p.exporters]), ...Object.values(readSources).flat()]);
  return COMPONENT_KINDS.flatMap((kind) =>
    [...components[kind]].filter(([text]) => refs.has(text)).map(([text, component]) => ({ path: `${SECTIONS[kind]}.${text}`, factory: component.factory })),
  );
}

function resolveComponents(
  kind: ComponentKind,
  section: unknown,
  registry: Registry,
  errors: ConfigError[],
  invalid: Set<string>,
  origins: DefaultOrigins,
): Map<string, ResolvedComponent> {
  const out = new Map<string, ResolvedComponent>();
  const sectionName = SECTIONS[kind];
  if (section === undefined || section === null) return out;
  if (!isRecord(section)) {
    errors.push({ path: sectionName, message: 'must be a mapping of component ids to their settings' });
    return out;
  }
  const singletons = new Map<string, string>();
  for (const [text, value] of Object.entries(section)) {
    const path = `${sectionName}.${text}`;
    const id = parseComponentId(text);
    if (!id) {
      errors.push({ path, message: 'a component id is type[/name], e.g. duckdb or parquet/archive' });
      continue;
    }
    const factory = registry.get(kind, id.type);
    if (!factory) {
      const known = registry
        .list(kind)
        .map((f) => f.type)
        .join(', ');
      errors.push({ path, message: `unknown ${kind} type "${id.type}" (known: ${known || 'none'})` });
      continue;
    }
    if (factory.singleton) {
      const first = singletons.get(id.type);
      if (first !== undefined) errors.push({ path, message: `only one ${kind} of type "${id.type}" may be configured, and "${first}" already is` });
      else singletons.set(id.type, text);
    }
    const parsed = factory.configSchema.safeParse(withDefaults(value ?? {}, factory.defaults, path, origins));
    if (!parsed.success) {
      errors.push(...schemaErrors(factory.configSchema, path, parsed.error.issues));
      invalid.add(text);
      continue;
    }
    out.set(text, { id, kind, factory, config: parsed.data });
  }
  return out;
}

interface DefaultOrigins {
  env: NodeJS.ProcessEnv;
  /** The `service` section as written (after `${env:…}` expansion). */
  service: Record<string, unknown>;
  warnings: ConfigError[];
}

/** A component's section with the keys it leaves out taken from its factory's `defaults`: an environment variable, else a deprecated service key. */
function withDefaults(section: unknown, defaults: Readonly<Record<string, ConfigDefault>> | undefined, path: string, origins: DefaultOrigins): unknown {
  if (!defaults || !isRecord(section)) return section;
  const out = { ...section };
  for (const [key, origin] of Object.entries(defaults)) {
    if (out[key] !== undefined) continue;
    const fromEnv = origin.env === undefined ? undefined : origins.env[origin.env];
    if (fromEnv !== undefined && fromEnv !== '') {
      out[key] = /^\d{1,15}$/.test(fromEnv) ? Number(fromEnv) : fromEnv;
      continue;
    }
    if (origin.deprecatedServiceKey === undefined) continue;
    const old = dotted(origins.service, origin.deprecatedServiceKey);
    if (old === undefined || old === null) continue;
    out[key] = old;
    origins.warnings.push({
      path: `service.${origin.deprecatedServiceKey}`,
      message: `is deprecated and will be removed in the next release: set ${path}.${key} instead`,
    });
  }
  return out;
}

function dotted(root: Record<string, unknown>, keys: string): unknown {
  let node: unknown = root;
  for (const key of keys.split('.')) node = isRecord(node) ? node[key] : undefined;
  return node;
}

/** A pipeline names receivers and connectors in one list, and exporters and connectors in another. */
function checkConnectorIds(components: Components, errors: ConfigError[]): void {
  for (const text of components.connector.keys()) {
    for (const kind of ['receiver', 'exporter'] as const)
      if (components[kind].has(text))
        errors.push({ path: `connectors.${text}`, message: `"${text}" is also configured under ${SECTIONS[kind]}: a connector needs an id of its own` });
  }
}

/** A zod schema's issues at their YAML paths; an unknown key named at its own path, with the closest known key of its object. */
function schemaErrors(schema: z.ZodType, path: string, issues: readonly z.core.$ZodIssue[]): ConfigError[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: joinPath(path, [...issue.path, key]), message: unknownKeyMessage(key, zodObjectKeys(schema, issue.path)) }))
      : [{ path: joinPath(path, issue.path), message: issue.message }],
  );
}

function resolvePipelines(
  section: unknown,
  components: Components,
  registry: Registry,
  errors: ConfigError[],
  invalid: ReadonlySet<string>,
): ResolvedPipeline[] {
  const base = 'service.pipelines';
  if (section === undefined || section === null) return [];
  if (!isRecord(section)) {
    errors.push({ path: base, message: 'must be a mapping of pipeline ids (signal[/name]) to pipelines' });
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
      errors.push(...schemaErrors(pipelineSchema, path, parsed.error.issues));
      continue;
    }
    const { receivers, processors, exporters, max_in_flight } = parsed.data;
    const pipeline = { id, signal, receivers, processors, exporters, limits: { ...DEFAULT_BUDGETS[signal], ...stripUndefined(max_in_flight ?? {}) } };
    const valid = checkReferences(pipeline, path, components, registry, errors, invalid);
    if (valid) checkOrder(pipeline, path, components, registry, errors);
    if (valid) checkStorageGuards(pipeline, path, components, registry, errors);
    pipelines.push(pipeline);
  }
  return pipelines;
}

type Slot = 'receivers' | 'processors' | 'exporters';

/** What an id in a pipeline list may name: a receiver or a connector, a processor, an exporter or a connector. */
const SLOT_KINDS: Record<Slot, readonly ComponentKind[]> = {
  receivers: ['receiver', 'connector'],
  processors: ['processor'],
  exporters: ['exporter', 'connector'],
};

function lookup(components: Components, slot: Slot, ref: string): ResolvedComponent | undefined {
  for (const kind of SLOT_KINDS[slot]) {
    const component = components[kind].get(ref);
    if (component) return component;
  }
  return undefined;
}

/** The signal a component takes in this slot: a connector is an exporter of `from` and a receiver of `to`. */
function slotSignals(component: ResolvedComponent, slot: Slot): readonly Signal[] {
  const { factory } = component;
  if (factory.kind !== 'connector') return factory.signals;
  return [slot === 'receivers' ? factory.to : factory.from];
}

/** Every id names a configured component that handles the pipeline's signal; none twice. Returns whether all did. */
function checkReferences(
  pipeline: ResolvedPipeline,
  path: string,
  components: Components,
  registry: Registry,
  errors: ConfigError[],
  invalid: ReadonlySet<string>,
): boolean {
  const before = errors.length;
  let complete = true;
  const { signal } = pipeline;
  for (const slot of ['receivers', 'processors', 'exporters'] as const) {
    const list = pipeline[slot];
    list.forEach((ref, index) => {
      const component = lookup(components, slot, ref);
      const refPath = `${path}.${slot}[${index}]`;
      if (!component) {
        complete = false;
        if (invalid.has(ref)) return;
        const where = SLOT_KINDS[slot].map((kind) => SECTIONS[kind]).join(' or ');
        errors.push({ path: refPath, message: `no ${SLOT_KINDS[slot].join(' or ')} "${ref}" is configured under ${where}` });
        return;
      }
      const handled = slotSignals(component, slot);
      if (handled.includes(signal)) return;
      const { factory } = component;
      const message =
        factory.kind === 'connector'
          ? `connector "${ref}" turns ${factory.from} into ${factory.to}: list it as an exporter of ${article(factory.from)} pipeline and a receiver of ${article(factory.to)} pipeline, not in ${slot} of ${article(signal)} pipeline`
          : `${factory.kind} "${ref}" does not handle ${signal} (it handles ${handled.join(', ')})${connectorHint(factory, signal, registry)}`;
      errors.push({ path: refPath, message });
    });
    const dup = list.find((ref, index) => list.indexOf(ref) !== index);
    if (dup) errors.push({ path: `${path}.${slot}`, message: `"${dup}" is listed twice` });
  }
  return complete && errors.length === before;
}

/** A receiver in a pipeline of a signal it does not give, where a connector turns what it gives into that signal. */
function connectorHint(factory: ComponentFactory, signal: Signal, registry: Registry): string {
  if (factory.kind !== 'receiver') return '';
  const connector = registry.list('connector').find((c) => c.kind === 'connector' && c.to === signal && factory.signals.includes(c.from));
  if (!connector || connector.kind !== 'connector') return '';
  return `; to turn its ${connector.from} into ${signal}, configure the ${connector.type} connector (connectors: { ${connector.type}: {} }) and list it as an exporter of the ${connector.from} pipeline and a receiver of this one`;
}

/**
 * The contracts along one pipeline: what each processor and exporter requires, an earlier part
 * must provide (the receivers: every one of them); a processor that must come before another
 * (`before`) does.
 */
function checkOrder(pipeline: ResolvedPipeline, path: string, components: Components, registry: Registry, errors: ConfigError[]): void {
  const { signal } = pipeline;
  const facts = (component: ResolvedComponent) => component.factory.provides?.[signal] ?? [];
  const fromReceivers = pipeline.receivers.map((ref) => facts(lookup(components, 'receivers', ref) as ResolvedComponent));
  const available = new Set(fromReceivers.reduce((common, next) => common.filter((fact) => next.includes(fact))));

  const processors = pipeline.processors.map((ref) => lookup(components, 'processors', ref) as ResolvedComponent);
  const checkRequires = (component: ResolvedComponent, ref: string, refPath: string, position: number) => {
    for (const fact of component.factory.requires?.[signal] ?? []) {
      if (available.has(fact)) continue;
      errors.push({
        path: refPath,
        message: `${component.kind} "${ref}" needs ${fact} on ${signal}: ${providerHint(fact, signal, processors, position, pipeline, registry)}`,
      });
    }
  };
  processors.forEach((component, index) => {
    const ref = pipeline.processors[index];
    const refPath = `${path}.processors[${index}]`;
    checkRequires(component, ref, refPath, index);
    for (const fact of facts(component)) available.add(fact);
    const factory = component.factory;
    if (factory.kind !== 'processor') return;
    for (const later of factory.before ?? []) {
      const earlier = processors.findIndex((other, i) => i < index && other.id.type === later);
      if (earlier >= 0)
        errors.push({
          path: refPath,
          message: `processor "${ref}" must come before the ${later} processor ("${pipeline.processors[earlier]}", processors[${earlier}]): move it up`,
        });
    }
  });
  pipeline.exporters.forEach((ref, index) => {
    checkRequires(lookup(components, 'exporters', ref) as ResolvedComponent, ref, `${path}.exporters[${index}]`, processors.length);
  });
}

/** How to get a missing fact: move a processor of the pipeline that provides it up, or add one. */
/**
 * A pipeline whose items reach a persisting exporter lists every processor type that guards
 * storage (scrubbing), so nothing is written before it ran, unless its receivers all relay items
 * another pipeline processed, or the config turns that processor off on purpose (`enabled: false`).
 */
function checkStorageGuards(pipeline: ResolvedPipeline, path: string, components: Components, registry: Registry, errors: ConfigError[]): void {
  const persisting = pipeline.exporters.find((ref) => {
    const factory = lookup(components, 'exporters', ref)?.factory;
    return factory?.kind === 'exporter' && factory.persists === true;
  });
  if (persisting === undefined) return;
  const relayed = pipeline.receivers.every((ref) => {
    const factory = lookup(components, 'receivers', ref)?.factory;
    return factory?.kind === 'receiver' && factory.relays?.includes(pipeline.signal) === true;
  });
  if (relayed && pipeline.receivers.length > 0) return;
  for (const guard of registry.list('processor')) {
    if (guard.kind !== 'processor' || !guard.guardsStorage || !guard.signals.includes(pipeline.signal)) continue;
    if (pipeline.processors.some((ref) => components.processor.get(ref)?.id.type === guard.type)) continue;
    const configured = [...components.processor.values()].filter((c) => c.id.type === guard.type);
    if (configured.some((c) => isRecord(c.config) && c.config.enabled === false)) continue;
    errors.push({
      path: `${path}.processors`,
      message:
        `the pipeline stores ${pipeline.signal} (exporter "${persisting}") without the ${guard.type} processor: list it right after validation` +
        `${configured.length ? '' : ` (and add processors.${guard.type}: {})`}, or configure it with enabled: false to store items unscrubbed`,
    });
  }
}

function providerHint(fact: string, signal: Signal, processors: ResolvedComponent[], position: number, pipeline: ResolvedPipeline, registry: Registry): string {
  const later = processors.findIndex((p, i) => i >= position && (p.factory.provides?.[signal] ?? []).includes(fact));
  if (later >= 0) return `move the ${processors[later].id.type} processor ("${pipeline.processors[later]}", processors[${later}]) before it`;
  const providers = registry
    .list('processor')
    .filter((f) => factorySignals(f).includes(signal) && (f.provides?.[signal] ?? []).includes(fact))
    .map((f) => f.type);
  if (providers.length === 1) return `add the ${providers[0]} processor before it`;
  if (providers.length > 1) return `add one of the ${providers.join(', ')} processors before it`;
  return 'no registered processor provides it';
}

/** Each connector is an exporter of a pipeline of its `from` signal and a receiver of one of its `to` signal. */
function checkConnectorsUsed(components: Components, pipelines: ResolvedPipeline[], errors: ConfigError[]): void {
  for (const [text, component] of components.connector) {
    const factory = component.factory;
    if (factory.kind !== 'connector') continue;
    const asExporter = pipelines.some((p) => p.signal === factory.from && p.exporters.includes(text));
    const asReceiver = pipelines.some((p) => p.signal === factory.to && p.receivers.includes(text));
    const path = `connectors.${text}`;
    if (!asExporter)
      errors.push({
        path,
        message: `connector "${text}" is an exporter of no ${factory.from} pipeline: list it under service.pipelines.${factory.from}.exporters`,
      });
    if (!asReceiver)
      errors.push({ path, message: `connector "${text}" is a receiver of no ${factory.to} pipeline: list it under service.pipelines.${factory.to}.receivers` });
  }
}

/** Connectors must not lead a pipeline's items back into itself (they would never settle). */
function checkCycles(components: Components, pipelines: ResolvedPipeline[], errors: ConfigError[]): void {
  // Only the ends that pass checkReferences: a connector listed for the wrong signal is reported there.
  const next = (pipeline: ResolvedPipeline) =>
    pipeline.exporters.flatMap((ref) => {
      const factory = components.connector.get(ref)?.factory;
      if (factory?.kind !== 'connector' || factory.from !== pipeline.signal) return [];
      return pipelines.filter((p) => p.signal === factory.to && p.receivers.includes(ref));
    });
  for (const start of pipelines) {
    const seen = new Set<ResolvedPipeline>();
    const queue = next(start);
    while (queue.length) {
      const pipeline = queue.shift() as ResolvedPipeline;
      if (pipeline === start) {
        errors.push({
          path: `service.pipelines.${start.id}`,
          message: 'its items come back to it through connectors: pipelines joined by connectors must not form a cycle',
        });
        break;
      }
      if (seen.has(pipeline)) continue;
      seen.add(pipeline);
      queue.push(...next(pipeline));
    }
  }
}

/**
 * Receivers that open listeners of their own (those in a pipeline: the others are not started)
 * need ports of their own: a clash would only show as EADDRINUSE at start.
 */
/** Two instances of one type may not own the same thing (two parquet exporters on one lake). */
function checkOwnership(components: Components, settings: ServiceSettings, errors: ConfigError[]): void {
  for (const kind of Object.keys(components) as ComponentKind[]) {
    const owners = new Map<string, string>();
    for (const [text, component] of components[kind]) {
      const owned = component.factory.owns?.(component.config, settings);
      if (owned === undefined) continue;
      const key = `${component.id.type}\0${owned}`;
      const first = owners.get(key);
      if (first === undefined) owners.set(key, text);
      else errors.push({ path: `${SECTIONS[kind]}.${text}`, message: `"${first}" already uses ${owned}: give each instance its own` });
    }
  }
}

function checkListeners(components: Components, pipelines: ResolvedPipeline[], settings: Pick<ServiceSettings, 'http'>, errors: ConfigError[]): void {
  const taken: Array<{ host: string; port: number; who: string }> = [{ ...settings.http, who: 'the HTTP API (service.http)' }];
  const anyAddress = (host: string) => host === '0.0.0.0' || host === '::' || host === '';
  for (const [text, component] of components.receiver) {
    const factory = component.factory;
    if (factory.kind !== 'receiver' || !factory.listensOn || !pipelines.some((p) => p.receivers.includes(text))) continue;
    const { host, port } = factory.listensOn(component.config);
    if (port === 0) continue;
    const clash = taken.find((t) => t.port === port && (t.host === host || anyAddress(t.host) || anyAddress(host)));
    if (clash) errors.push({ path: `receivers.${text}`, message: `listens on ${host}:${port}, as ${clash.who} does: give it a port of its own` });
    else taken.push({ host, port, who: `receiver "${text}"` });
  }
}

/** `service.storage.<signal>`: exporter ids that serve reads of the signal, or the default. */
/** `service.storage.<signal>: both`, from before storage named exporter ids: the exporter types whose factory says it is in it, in registry order. */
function bothAlias(registry: Registry): string[] {
  return registry
    .list('exporter')
    .filter((factory) => factory.kind === 'exporter' && factory.inBothAlias === true)
    .map((factory) => factory.type);
}

function resolveReadSources(
  storage: Record<Signal, StorageSetting>,
  components: Components,
  pipelines: ResolvedPipeline[],
  env: NodeJS.ProcessEnv,
  errors: ConfigError[],
  invalid: ReadonlySet<string>,
  both: readonly string[],
): Partial<Record<Signal, string[]>> {
  const out: Partial<Record<Signal, string[]>> = {};
  const reads = (ref: string, signal: Signal) => {
    const factory = components.exporter.get(ref)?.factory;
    return factory?.kind === 'exporter' && (factory.reads ?? []).includes(signal);
  };
  for (const signal of SIGNALS) {
    const value = storage[signal];
    if (!present(value)) {
      const first = pipelines
        .filter((p) => p.signal === signal)
        .flatMap((p) => p.exporters)
        .find((ref) => reads(ref, signal));
      if (first !== undefined) out[signal] = [first];
      continue;
    }
    const fromEnv = env[storageEnv(signal)] ? ` (set by ${storageEnv(signal)})` : '';
    const alias = value === 'both';
    const ids = alias ? both : typeof value === 'string' ? value.split(',').map((id) => id.trim()) : value.map((id) => id.trim());
    const ok: string[] = [];
    ids.forEach((ref, index) => {
      const path = `service.storage.${signal}${alias ? '' : `[${index}]`}`;
      const said = alias ? `"both" means ${both.join(', ')}, and ` : '';
      if (ref === '') errors.push({ path, message: `an exporter id is empty${fromEnv}` });
      else if (ids.indexOf(ref) !== index) errors.push({ path, message: `"${ref}" is listed twice${fromEnv}` });
      else if (invalid.has(ref)) return;
      else if (!components.exporter.has(ref)) {
        const candidates = [...components.exporter.keys()].filter((id) => reads(id, signal));
        const known = candidates.length ? ` (configured exporters that serve ${signal} reads: ${candidates.join(', ')})` : '';
        errors.push({ path, message: `${said}no exporter "${ref}" is configured under exporters${known}${fromEnv}` });
      } else if (!reads(ref, signal)) errors.push({ path, message: `${said}exporter "${ref}" cannot serve reads of ${signal}${fromEnv}` });
      else ok.push(ref);
    });
    out[signal] = ok;
  }
  return out;
}

/** `a traces`, `an events`. */
function article(signal: Signal): string {
  return `${/^[aeiou]/.test(signal) ? 'an' : 'a'} ${signal}`;
}

function present(value: StorageSetting | undefined): value is string | string[] {
  return value !== null && value !== undefined && !(typeof value === 'string' && value.trim() === '') && !(Array.isArray(value) && value.length === 0);
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
