// The contract between the engine and every receiver, processor and exporter, modelled on the
// OpenTelemetry Collector: a factory knows its type name, the signals it handles, how to
// validate its config section, and how to create an instance.
import type { z } from 'zod';
import type { ReadSource } from '../storage/read-source.js';
import type { Host } from './host.js';
import type { Item, Signal } from './item.js';

export type ComponentKind = 'receiver' | 'processor' | 'exporter';

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

/** Where a receiver hands items to the pipelines that listen to it. */
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

export interface ComponentSettings<C> {
  id: ComponentId;
  config: C;
  host: Host;
}

export interface ExporterSettings<C> extends ComponentSettings<C> {
  /**
   * Nothing exports to it: it was created only to serve reads (a query node over a shared lake).
   * It must not run background writers (flushes, compaction, recovery) on storage others write.
   */
  readOnly?: boolean;
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

interface FactoryBase<C> {
  type: string;
  signals: readonly Signal[];
  /** Validates the component's YAML section (absent section = `{}`) and fills defaults. */
  configSchema: z.ZodType<C>;
  /** One line for `faultline validate` and the README. */
  description: string;
}

export interface ReceiverFactory<C = unknown> extends FactoryBase<C> {
  kind: 'receiver';
  create(settings: ReceiverSettings<C>): Receiver;
}

export interface ProcessorFactory<C = unknown> extends FactoryBase<C> {
  kind: 'processor';
  create(settings: ProcessorSettings<C>): Processor;
}

export interface ExporterFactory<C = unknown> extends FactoryBase<C> {
  kind: 'exporter';
  create(settings: ExporterSettings<C>): Exporter;
}

export type ComponentFactory = ReceiverFactory<any> | ProcessorFactory<any> | ExporterFactory<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- factories are heterogeneous in their config type
