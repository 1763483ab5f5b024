// The component registry: the engine looks factories up by kind and type name, and never imports
// a concrete component itself (src/components.ts lists the ones this build ships).
import type { ComponentFactory, ComponentKind, ExporterFactory, ProcessorFactory, ReceiverFactory } from './component.js';

type FactoryOfKind<K extends ComponentKind> = K extends 'receiver'
  ? ReceiverFactory<unknown>
  : K extends 'processor'
    ? ProcessorFactory<unknown>
    : ExporterFactory<unknown>;

export class Registry {
  private readonly factories = new Map<string, ComponentFactory>();

  constructor(factories: readonly ComponentFactory[] = []) {
    for (const factory of factories) this.register(factory);
  }

  register(factory: ComponentFactory): void {
    const key = `${factory.kind}:${factory.type}`;
    if (this.factories.has(key)) throw new Error(`${factory.kind} type "${factory.type}" is registered twice`);
    this.factories.set(key, factory);
  }

  get<K extends ComponentKind>(kind: K, type: string): FactoryOfKind<K> | undefined {
    return this.factories.get(`${kind}:${type}`) as FactoryOfKind<K> | undefined;
  }

  list(kind?: ComponentKind): ComponentFactory[] {
    return [...this.factories.values()].filter((f) => kind === undefined || f.kind === kind);
  }
}
