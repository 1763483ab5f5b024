// The running extensions of a service: created and started one after another in dependency order
// (resolve.ts orders them and checks every dependency is listed), so an extension finds what it
// depends on running when it is created; shut down in the reverse order, after the pipelines.
import type { ComponentId } from './component.js';
import type { AnyExtensionFactory, Extension } from './extension.js';
import type { Host } from './host.js';

/** One extension to run: its id, factory and parsed config. */
export interface ExtensionSpec {
  id: ComponentId;
  factory: AnyExtensionFactory;
  config: unknown;
}

export class ExtensionSet {
  private readonly running = new Map<string, Extension>();
  private readonly started: Extension[] = [];

  /** Looks up a running extension by id: what `Host.extension` answers with. */
  get(id: string): Extension | undefined {
    return this.running.get(id);
  }

  ids(): string[] {
    return [...this.running.keys()];
  }

  /**
   * Creates and starts each extension in the order given (dependencies first). When one fails,
   * those already started are shut down again before the error is thrown.
   */
  async start(specs: readonly ExtensionSpec[], host: Host): Promise<void> {
    try {
      for (const spec of specs) {
        const extension = spec.factory.create({ id: spec.id, config: spec.config, host });
        this.running.set(spec.id.text, extension);
        await extension.start?.();
        this.started.push(extension);
      }
    } catch (error) {
      await this.shutdown().catch(() => undefined);
      throw error;
    }
  }

  /** Dependents first: every extension stops before what it depends on. */
  async shutdown(): Promise<void> {
    let first: unknown;
    while (this.started.length) {
      const extension = this.started.pop() as Extension;
      await extension.shutdown?.().catch((error: unknown) => {
        first ??= error;
      });
    }
    this.running.clear();
    if (first !== undefined) throw first;
  }
}

/**
 * Orders extensions so that each comes after the extensions it depends on (looked up as ids equal
 * to the dependency's type). Returns the missing dependencies instead when one is not listed, and
 * the ids in a cycle when there is one.
 */
export function orderExtensions<T extends ExtensionSpec>(
  specs: readonly T[],
): { ordered: T[]; missing: Array<{ id: string; needs: string }>; cycle: string[] } {
  const byId = new Map(specs.map((spec) => [spec.id.text, spec]));
  const missing: Array<{ id: string; needs: string }> = [];
  for (const spec of specs) for (const needs of spec.factory.dependencies ?? []) if (!byId.has(needs)) missing.push({ id: spec.id.text, needs });
  const ordered: T[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const cycle: string[] = [];
  const visit = (spec: T, path: string[]): void => {
    const mark = state.get(spec.id.text);
    if (mark === 'done') return;
    if (mark === 'visiting') {
      if (!cycle.length) cycle.push(...path.slice(path.indexOf(spec.id.text)), spec.id.text);
      return;
    }
    state.set(spec.id.text, 'visiting');
    for (const needs of spec.factory.dependencies ?? []) {
      const dependency = byId.get(needs);
      if (dependency) visit(dependency, [...path, spec.id.text]);
    }
    state.set(spec.id.text, 'done');
    ordered.push(spec);
  };
  for (const spec of specs) visit(spec, []);
  return { ordered, missing, cycle };
}
