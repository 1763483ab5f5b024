// The extension contract, as in the OpenTelemetry Collector: shared state that components need
// (the database, the catalog, the alert store, …) is an extension declared under `extensions:` and
// listed in `service.extensions`. The service starts every extension before any pipeline, in
// dependency order, and stops them after every pipeline has drained. Components name the extension
// types they need in their factory (`extensions`), and reach an instance through
// `host.extension(id)`, usually via the typed getter an extension's `index.ts` exports.
import type { z } from 'zod';
import type { ComponentId } from './component.js';
import type { Host } from './host.js';

/**
 * An extension: anything with an optional start and shutdown. (`object &` keeps TypeScript from
 * treating it as a weak type, so an extension with neither, such as a holder of a store, is one.)
 */
export type Extension = object & {
  start?(): Promise<void>;
  /** Release what it holds; called after every pipeline and every extension depending on it stopped. */
  shutdown?(): Promise<void>;
};

/** Where extensions are found by id: the one thing Host offers besides logger, metrics and settings. */
export interface ExtensionLookup {
  /** The running extension with this id (`catalog`, `duckdb`), or undefined when it is not configured. */
  extension(id: string): Extension | undefined;
}

export interface ExtensionSettings<C> {
  id: ComponentId;
  config: C;
  /** Its dependencies are already created (and started before it starts): look them up here. */
  host: Host;
}

export interface ExtensionFactory<C = unknown> {
  kind: 'extension';
  /** The YAML type name (`duckdb`, `catalog`, `control_plane`). */
  type: string;
  /** One line for `faultline validate`, `faultline components` and the README. */
  description: string;
  /** Validates the extension's YAML section (absent section = `{}`) and fills defaults. */
  configSchema: z.ZodType<C>;
  /** The config an extension gets when its section is absent (the embedded default lists it bare). */
  defaultConfig(): C;
  /** Extension types this one needs running first (looked up under the type as id). */
  dependencies?: readonly string[];
  create(settings: ExtensionSettings<C>): Extension;
}

export type AnyExtensionFactory = ExtensionFactory<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- factories are heterogeneous in their config type

/** A constructor an extension instance is checked against (instanceof), so getters need no casts. */
export type ExtensionClass<T extends Extension> = abstract new (...args: never[]) => T;

/**
 * The running extension with id `id`, checked to be a `cls`: what every typed getter
 * (`catalogOf(host)`, …) is built on. Throws with the id when it is absent or of another type —
 * `validate` refuses such a config, so this is a bug in a component's declared `extensions`.
 */
export function requireExtension<T extends Extension>(host: ExtensionLookup, id: string, cls: ExtensionClass<T>): T {
  const found = host.extension(id);
  if (found === undefined)
    throw new Error(`extension "${id}" is not running: list it in service.extensions (and the component's factory in its \`extensions\`)`);
  if (!(found instanceof cls)) throw new Error(`extension "${id}" is not a ${cls.name}`);
  return found;
}

/** As requireExtension, but undefined when it is not configured (for what a component can run without). */
export function optionalExtension<T extends Extension>(host: ExtensionLookup, id: string, cls: ExtensionClass<T>): T | undefined {
  const found = host.extension(id);
  return found instanceof cls ? found : undefined;
}
