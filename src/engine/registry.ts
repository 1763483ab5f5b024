// The component registry: the engine looks factories up by kind and type name, and never imports
// a concrete component itself (src/components.ts lists the ones this build ships).
import {
  factorySignals,
  type ComponentFactory,
  type ComponentKind,
  type ConnectorFactory,
  type ExporterFactory,
  type Facts,
  type ProcessorFactory,
  type ReceiverFactory,
} from './component.js';
import type { AnyExtensionFactory } from './extension.js';
import type { Signal } from './item.js';

type FactoryOfKind<K extends ComponentKind> = K extends 'receiver'
  ? ReceiverFactory<unknown>
  : K extends 'processor'
    ? ProcessorFactory<unknown>
    : K extends 'exporter'
      ? ExporterFactory<unknown>
      : ConnectorFactory<unknown>;

export class Registry {
  private readonly factories = new Map<string, ComponentFactory>();
  private readonly extensionFactories = new Map<string, AnyExtensionFactory>();

  constructor(factories: readonly ComponentFactory[] = [], extensions: readonly AnyExtensionFactory[] = []) {
    for (const factory of factories) this.register(factory);
    for (const factory of extensions) this.registerExtension(factory);
  }

  registerExtension(factory: AnyExtensionFactory): void {
    if (this.extensionFactories.has(factory.type)) throw new Error(`extension type "${factory.type}" is registered twice`);
    this.extensionFactories.set(factory.type, factory);
  }

  extension(type: string): AnyExtensionFactory | undefined {
    return this.extensionFactories.get(type);
  }

  /** Every extension factory, in the order registered (the default `service.extensions`). */
  extensions(): AnyExtensionFactory[] {
    return [...this.extensionFactories.values()];
  }

  register(factory: ComponentFactory): void {
    const key = `${factory.kind}:${factory.type}`;
    if (this.factories.has(key)) throw new Error(`${factory.kind} type "${factory.type}" is registered twice`);
    const problems = metadataProblems(factory);
    if (problems.length) throw new Error(`${factory.kind} type "${factory.type}": ${problems.join('; ')}`);
    this.factories.set(key, factory);
  }

  get<K extends ComponentKind>(kind: K, type: string): FactoryOfKind<K> | undefined {
    return this.factories.get(`${kind}:${type}`) as FactoryOfKind<K> | undefined;
  }

  list(kind?: ComponentKind): ComponentFactory[] {
    return [...this.factories.values()].filter((f) => kind === undefined || f.kind === kind);
  }
}

/** A factory's metadata must agree with itself; a mistake here is a bug in the component, caught at start. */
function metadataProblems(factory: ComponentFactory): string[] {
  const problems: string[] = [];
  const outside = (what: string, facts: Facts | undefined, allowed: readonly Signal[]) => {
    for (const signal of Object.keys(facts ?? {})) if (!allowed.includes(signal as Signal)) problems.push(`${what} names ${signal}, which it does not handle`);
  };
  if (factory.kind === 'connector') {
    outside('requires', factory.requires, [factory.from]);
    outside('provides', factory.provides, [factory.to]);
    return problems;
  }
  const signals = factorySignals(factory);
  for (const signal of signals) if (!factory.stability[signal]) problems.push(`no stability for ${signal}`);
  for (const signal of Object.keys(factory.stability))
    if (!signals.includes(signal as Signal)) problems.push(`stability names ${signal}, which it does not handle`);
  outside('requires', factory.requires, signals);
  outside('provides', factory.provides, signals);
  if (factory.kind === 'exporter')
    for (const signal of factory.reads ?? []) if (!signals.includes(signal)) problems.push(`reads ${signal}, which it does not handle`);
  return problems;
}
