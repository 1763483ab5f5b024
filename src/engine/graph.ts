// Builds the running pipelines from a resolved configuration and owns their lifecycle: exporters
// start first and stop last; receivers start last and stop first; pipelines drain in between.
import type { ResolvedConfig, ResolvedComponent } from '../config/resolve.js';
import type { Consumer, Exporter, ExporterFactory, Processor, ProcessorFactory, Receiver, ReceiverFactory } from './component.js';
import { FanOutConsumer } from './fanout.js';
import type { Host } from './host.js';
import type { Signal } from './item.js';
import { Pipeline } from './pipeline.js';

export class PipelineGraph {
  private constructor(
    readonly pipelines: Pipeline[],
    private readonly receivers: Map<string, Receiver>,
    private readonly processors: Processor[],
    private readonly exporterMap: Map<string, Exporter>,
  ) {}

  static build(config: ResolvedConfig, host: Host): PipelineGraph {
    const exporters = new Map<string, Exporter>();
    const usedExporters = new Set(config.pipelines.flatMap((p) => p.exporters));
    for (const [text, component] of config.components.exporter) {
      if (!usedExporters.has(text)) continue;
      const factory = component.factory as ExporterFactory<unknown>;
      exporters.set(text, factory.create({ id: component.id, config: component.config, host }));
    }

    const processors: Processor[] = [];
    const pipelines = config.pipelines.map((definition) => {
      const chain = definition.processors.map((ref) => {
        const component = config.components.processor.get(ref) as ResolvedComponent;
        const factory = component.factory as ProcessorFactory<unknown>;
        const processor = factory.create({ id: component.id, config: component.config, host, signal: definition.signal, pipeline: definition.id });
        processors.push(processor);
        return { id: ref, processor };
      });
      const sinks = definition.exporters.map((ref) => ({ id: ref, exporter: exporters.get(ref) as Exporter }));
      return new Pipeline(definition.id, definition.signal, chain, sinks, definition.limits, host.metrics);
    });

    const receivers = new Map<string, Receiver>();
    for (const [text, component] of config.components.receiver) {
      const consumers: Partial<Record<Signal, Consumer>> = {};
      for (const signal of component.factory.signals) {
        const listening = pipelines.filter((p, i) => p.signal === signal && config.pipelines[i].receivers.includes(text));
        if (listening.length) consumers[signal] = new FanOutConsumer(listening);
      }
      if (Object.keys(consumers).length === 0) continue; // configured but in no pipeline: not started
      const factory = component.factory as ReceiverFactory<unknown>;
      receivers.set(text, factory.create({ id: component.id, config: component.config, host, consumers }));
    }
    return new PipelineGraph(pipelines, receivers, processors, exporters);
  }

  async start(): Promise<void> {
    for (const exporter of this.exporterMap.values()) await exporter.start?.();
    for (const processor of this.processors) await processor.start?.();
    for (const receiver of this.receivers.values()) await receiver.start?.();
  }

  /** Receivers stop taking work, pipelines drain, then processors and exporters flush and stop. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.receivers.values()].map((r) => r.shutdown?.()));
    await Promise.all(this.pipelines.map((p) => p.drain()));
    for (const processor of this.processors) await processor.shutdown?.();
    for (const exporter of this.exporterMap.values()) await exporter.shutdown?.();
  }

  /** The running exporter with this id (`duckdb`, `parquet/archive`), for operations and tests. */
  exporter(id: string): Exporter | undefined {
    return this.exporterMap.get(id);
  }

  /** Every running exporter with its id. */
  exporters(): Array<{ id: string; exporter: Exporter }> {
    return [...this.exporterMap].map(([id, exporter]) => ({ id, exporter }));
  }

  /** Stop admitting new items everywhere (readiness goes down before the listeners close). */
  async drain(): Promise<void> {
    await Promise.all(this.pipelines.map((p) => p.drain()));
  }
}
