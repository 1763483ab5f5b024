// The contract between the engine and every receiver, processor, exporter and connector, modelled
// on the OpenTelemetry Collector: a factory knows its type name, the signals it handles (and how
// stable each is), how to validate its config section, how to create an instance, and the facts
// it needs on items and adds to them, which the configuration loader checks against the order of
// every pipeline (src/config/resolve.ts).
import type { z } from 'zod';
import type { ReadSource } from './read-source.js';
import type { ServiceSettings } from '../config/service-schema.js';
import type { Host } from './host.js';
import type { Item, Signal } from './item.js';

export type ComponentKind = 'receiver' | 'processor' | 'exporter' | 'connector';
export const COMPONENT_KINDS: readonly ComponentKind[] = ['receiver', 'processor', 'exporter', 'connector'];

/** As in the Collector: how far a component's behaviour for a signal may still change. */
export type Stability = 'development' | 'alpha' | 'beta' | 'stable';
export const STABILITIES: readonly Stability[] = ['development', 'alpha', 'beta', 'stable'];

/**
 * What a component needs on (`requires`) or adds to (`provides`) the items of a signal: names of
 * item facts such as `validated` (the item carries the signal's record, see SignalRecords) or
 * `issue_id`. Per signal, since one component can work differently on each.
 */
export type Facts = Partial<Record<Signal, readonly string[]>>;

/** `type[/name]`, as in the Collector: `duckdb`, `parquet/archive`. */
export interface ComponentId {
  type: string;
  name?: string;
  /** The id as written in YAML. */
  text: string;
}

export function parseComponentId(text: string): ComponentId | undefined {
  const match = /^([a-z][a-z0-9_]*)(?:\/([A-Za-z0-9_.-]+))?$/.exec(text);
  if (!match) return undefined;
  return { type: match[1], name: match[2], text };
}

export interface Lifecycle {
  start?(): Promise<void>;
  /** Stop taking work, finish what is in hand, release resources. */
  shutdown?(): Promise<void>;
}

/** Where a receiver (or a connector) hands items to the pipelines that listen to it. */
export interface Consumer {
  /**
   * Runs the items through every pipeline of the signal that lists this receiver. Resolves once
   * every exporter has made the live items durable; each item then carries its outcome (unset
   * outcome = accepted). Throws OverloadedError when a pipeline is past its budget (nothing was
   * taken), ShuttingDownError while draining, ExportError when an exporter failed.
   */
  consume(items: Item[]): Promise<void>;
  /**
   * Throws what consume would (OverloadedError, ShuttingDownError) if `count` items of `bytes`
   * would be refused now, taking nothing: receivers ask before reading a body, so a refusal
   * costs neither the read nor the parse.
   */
  assertRoom(count: number, bytes: number): void;
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the contract a receiver implements, by name
export interface Receiver extends Lifecycle {}

export interface Processor extends Lifecycle {
  /** Change, drop or reject live items in place (see engine/item.ts). Only live items are passed. */
  process(items: Item[]): Promise<void> | void;
}

export interface Exporter extends Lifecycle {
  /** Resolves once the items are durable (committed, flushed, acknowledged). */
  export(signal: Signal, items: Item[]): Promise<void>;
  /** A storing exporter: what the read API reads the signals it stores from. */
  readSource?(): ReadSource;
  /** A storing exporter: deletes what is dated before each signal's first kept day (`YYYY-MM-DD`, UTC). */
  expire?(firstKept: Partial<Record<Signal, string>>): Promise<ExpiryResult>;
}

export interface ExpiryResult {
  /** Rows deleted, by table. */
  deletedRows: Record<string, number>;
  /** Whole partitions (directories) deleted. */
  deletedPartitions: string[];
}

/**
 * Both ends of two pipelines: the exporter side takes the items of the pipelines of its `from`
 * signal that list it as an exporter, and hands what it makes of them to its `to` consumer. Its
 * `export` resolves once the consumer has (so a sender's acknowledgment covers both).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the contract a connector implements, by name
export interface Connector extends Exporter {}

export interface ComponentSettings<C> {
  id: ComponentId;
  config: C;
  host: Host;
}

export interface ReceiverSettings<C> extends ComponentSettings<C> {
  /** One consumer per signal that at least one pipeline feeds from this receiver. */
  consumers: Partial<Record<Signal, Consumer>>;
}

export interface ProcessorSettings<C> extends ComponentSettings<C> {
  /** Processors are created once per pipeline, for that pipeline's signal. */
  signal: Signal;
  pipeline: string;
}

export interface ExporterSettings<C> extends ComponentSettings<C> {
  /**
   * True when the exporter is in no pipeline and runs only because `service.storage` reads from
   * it (a read-only node): it must not run background writers (flushes, compaction, indexing).
   */
  readOnly: boolean;
}

export interface ConnectorSettings<C> extends ComponentSettings<C> {
  /** Fans out to every pipeline of the `to` signal that lists the connector as a receiver. */
  consumer: Consumer;
}

interface FactoryBase<C> {
  type: string;
  /** Validates the component's YAML section (absent section = `{}`) and fills defaults. */
  configSchema: z.ZodType<C>;
  /** One line for `faultline validate`, `faultline components` and the README. */
  description: string;
  /** Item facts that earlier components of the pipeline must provide, per signal. */
  requires?: Facts;
  /** Item facts this component adds, per signal. */
  provides?: Facts;
  /** At most one instance of this type may be configured (it owns a shared resource). */
  singleton?: boolean;
  /**
   * What an instance owns exclusively, given its config and the service settings (a directory):
   * two instances of the type whose answers are equal cannot both run.
   */
  owns?(config: C, settings: ServiceSettings): string | undefined;
  /**
   * Where keys of its config come from when its own section leaves them out, by key: an
   * environment variable (`env`; a number when it is all digits), else a key of the `service`
   * section that held it before (`deprecatedServiceKey`, dotted; accepted for one release, with a
   * warning naming the component's key). The schema's default applies after both.
   */
  defaults?: Readonly<Record<string, ConfigDefault>>;
  /**
   * Called for every configured instance, in a pipeline or not, once the host is built and
   * before anything starts: what its section sets in the service's shared state (the alerting
   * section sets the alert rules API's limits, which a node that runs no pipeline serves too).
   */
  configureHost?(config: C, host: Host): void;
  /**
   * The Prometheus metrics in which this component appears (by its id as a label), whether it
   * counts them itself or the engine counts them for it (exporter sent/failed, processor
   * dropped/rejected).
   */
  metrics?: readonly string[];
  /**
   * Extension types (src/engine/extension.ts) an instance looks up through `host.extension(type)`:
   * `validate` refuses a config whose `service.extensions` lacks one.
   */
  extensions?: readonly string[];
}

export interface ConfigDefault {
  env?: string;
  deprecatedServiceKey?: string;
}

/** Receivers, processors and exporters: in pipelines of the signals they handle. */
interface SignalFactoryBase<C> extends FactoryBase<C> {
  signals: readonly Signal[];
  /** One entry per signal of `signals` (the registry checks). */
  stability: Partial<Record<Signal, Stability>>;
}

/** Where a receiver with a listener of its own binds (port 0: any free port, which never clashes). */
export interface Endpoint {
  host: string;
  port: number;
}

export interface ReceiverFactory<C = unknown> extends SignalFactoryBase<C> {
  kind: 'receiver';
  /**
   * For a receiver that opens a listener of its own: where, given its config. resolve.ts rejects
   * two listeners (or one and the service's HTTP port) on one port.
   */
  listensOn?(config: C): Endpoint;
  /** The signals whose items went through another Faultline pipeline before (a Kafka topic only an ingest node writes). */
  relays?: readonly Signal[];
  create(settings: ReceiverSettings<C>): Receiver;
}

export interface ProcessorFactory<C = unknown> extends SignalFactoryBase<C> {
  kind: 'processor';
  /**
   * Processor types that must come after this one when both are in a pipeline (e.g. a
   * symbolication processor before `grouping`). The other direction, "after X", is a `requires`
   * of a fact X provides.
   */
  before?: readonly string[];
  /**
   * A pipeline that hands items to a persisting exporter must list a processor of this type
   * (scrubbing: nothing is written before it ran), unless a receiver of the pipeline `relays`
   * items another pipeline already processed, or the config sets it up with `enabled: false`.
   */
  guardsStorage?: boolean;
  create(settings: ProcessorSettings<C>): Processor;
}

export interface ExporterFactory<C = unknown> extends SignalFactoryBase<C> {
  kind: 'exporter';
  /** Signals for which it can serve reads, i.e. what `service.storage.<signal>` may name it for. */
  reads?: readonly Signal[];
  /** `service.storage.<signal>: both` (deprecated, from before storage named exporter ids) includes an instance of this type. */
  inBothAlias?: boolean;
  /** It writes items where they outlive the process (a file, a table, a topic): see ProcessorFactory.guardsStorage. */
  persists?: boolean;
  create(settings: ExporterSettings<C>): Exporter;
}

export interface ConnectorFactory<C = unknown> extends FactoryBase<C> {
  kind: 'connector';
  /** The signal of the pipelines it is an exporter in (`requires` is read for this signal). */
  from: Signal;
  /** The signal of the pipelines it is a receiver in (`provides` is read for this signal). */
  to: Signal;
  stability: Stability;
  create(settings: ConnectorSettings<C>): Connector;
}

export type ComponentFactory = ReceiverFactory<any> | ProcessorFactory<any> | ExporterFactory<any> | ConnectorFactory<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- factories are heterogeneous in their config type

/** The signals a factory's instances can be listed under: as exporter (`from`) or receiver (`to`) for a connector. */
export function factorySignals(factory: ComponentFactory): readonly Signal[] {
  return factory.kind === 'connector' ? [...new Set([factory.from, factory.to])] : factory.signals;
}
