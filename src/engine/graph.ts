// Builds the running pipelines from a resolved configuration and owns their lifecycle. Start:
// exporters, processors, connectors (downstream first), receivers. Stop: receivers, then the
// pipelines drain in the order items flow — a connector shuts down once the pipelines feeding it
// have drained, before the pipelines it feeds drain — then processors and exporters.
import type { ResolvedComponent, ResolvedConfig } from '../config/resolve.js';
import type { Connector, ConnectorFactory, Consumer, Exporter, ExporterFactory, Processor, ProcessorFactory, Receiver, ReceiverFactory } from './component.js';
import { FanOutConsumer } from './fanout.js';
import type { Host } from './host.js';
import type { Signal } from './item.js';
import { Pipeline } from './pipeline.js';

interface RunningConnector {
  id: string;
  connector: Connector;
  /** The pipelines that export to it. */
  from: Pipeline[];
  /** The pipelines it feeds. */
  to: Pipeline[];
}

export class PipelineGraph {
  private constructor(
    readonly pipelines: Pipeline[],
    private readonly receivers: Map<string, Receiver>,
    private readonly processors: Processor[],
    private readonly exporterMap: Map<string, Exporter>,
    /** Exporters created only to serve reads. */
    private readonly readOnly: Set<string>,
    /** Downstream first: each one is created after the pipelines it feeds. */
    private readonly connectors: RunningConnector[],
  ) {}

  static build(config: ResolvedConfig, host: Host): PipelineGraph {
    const exporters = new Map<string, Exporter>();
    const inPipelines = new Set(config.pipelines.flatMap((p) => p.exporters));
    const readFrom = new Set(Object.values(config.readSources).flat());
    for (const [text, component] of config.components.exporter) {
      if (!inPipelines.has(text) && !readFrom.has(text)) continue;
      const factory = component.factory as ExporterFactory<unknown>;
      exporters.set(text, factory.create({ id: component.id, config: component.config, host, readOnly: !inPipelines.has(text) }));
    }

    // A pipeline is built once every connector it exports to exists, and a connector once every
    // pipeline it feeds exists (resolve.ts rejects cycles, so this always gets through).
    const processors: Processor[][] = config.pipelines.map(() => []);
    const built = new Map<number, Pipeline>();
    const connectors = new Map<string, RunningConnector>();
    const buildPipeline = (index: number): Pipeline => {
      const definition = config.pipelines[index];
      const chain = definition.processors.map((ref) => {
        const component = config.components.processor.get(ref) as ResolvedComponent;
        const factory = component.factory as ProcessorFactory<unknown>;
        const processor = factory.create({ id: component.id, config: component.config, host, signal: definition.signal, pipeline: definition.id });
        processors[index].push(processor);
        return { id: ref, processor };
      });
      const sinks = definition.exporters.map((ref) => ({ id: ref, exporter: (exporters.get(ref) ?? connectors.get(ref)?.connector) as Exporter }));
      return new Pipeline(definition.id, definition.signal, chain, sinks, definition.limits, host.metrics);
    };
    const fedBy = (ref: string) => config.pipelines.flatMap((p, i) => (p.receivers.includes(ref) ? [i] : []));
    while (built.size < config.pipelines.length || connectors.size < config.components.connector.size) {
      let progress = false;
      config.pipelines.forEach((definition, index) => {
        if (built.has(index) || !definition.exporters.every((ref) => exporters.has(ref) || connectors.has(ref))) return;
        built.set(index, buildPipeline(index));
        progress = true;
      });
      for (const [text, component] of config.components.connector) {
        const feeds = fedBy(text);
        if (connectors.has(text) || !feeds.every((i) => built.has(i))) continue;
        const to = feeds.map((i) => built.get(i) as Pipeline);
        const factory = component.factory as ConnectorFactory<unknown>;
        const connector = factory.create({ id: component.id, config: component.config, host, consumer: new FanOutConsumer(to) });
        connectors.set(text, { id: text, connector, from: [], to });
        progress = true;
      }
      if (!progress) throw new Error('pipelines joined by connectors form a cycle');
    }
    const pipelines = config.pipelines.map((_, index) => built.get(index) as Pipeline);
    for (const running of connectors.values()) running.from = pipelines.filter((_, i) => config.pipelines[i].exporters.includes(running.id));

    const receivers = new Map<string, Receiver>();
    for (const [text, component] of config.components.receiver) {
      const consumers: Partial<Record<Signal, Consumer>> = {};
      for (const signal of (component.factory as ReceiverFactory<unknown>).signals) {
        const listening = pipelines.filter((p, i) => p.signal === signal && config.pipelines[i].receivers.includes(text));
        if (listening.length) consumers[signal] = new FanOutConsumer(listening);
      }
      if (Object.keys(consumers).length === 0) continue; // configured but in no pipeline: not started
      const factory = component.factory as ReceiverFactory<unknown>;
      receivers.set(text, factory.create({ id: component.id, config: component.config, host, consumers }));
    }
    const readOnly = new Set([...exporters.keys()].filter((id) => !inPipelines.has(id)));
    return new PipelineGraph(pipelines, receivers, processors.flat(), exporters, readOnly, [...connectors.values()]);
  }

  async start(): Promise<void> {
    for (const exporter of this.exporterMap.values()) await exporter.start?.();
    for (const processor of this.processors) await processor.start?.();
    for (const { connector } of this.connectors) await connector.start?.();
    for (const receiver of this.receivers.values()) await receiver.start?.();
  }

  /** Receivers stop taking work, pipelines drain in the order items flow, then processors and exporters flush and stop. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.receivers.values()].map((r) => r.shutdown?.()));
    await this.drain(async (connector) => connector.shutdown?.());
    for (const processor of this.processors) await processor.shutdown?.();
    for (const exporter of this.exporterMap.values()) await exporter.shutdown?.();
  }

  /** The running exporter with this id (`duckdb`, `parquet/archive`), for operations and tests. */
  exporter(id: string): Exporter | undefined {
    return this.exporterMap.get(id);
  }

  /** Every running exporter with its id; `readOnly` when it runs only to serve reads (no pipeline exports to it). */
  exporters(): Array<{ id: string; exporter: Exporter; readOnly: boolean }> {
    return [...this.exporterMap].map(([id, exporter]) => ({ id, exporter, readOnly: this.readOnly.has(id) }));
  }

  /**
   * Stops admitting new items, upstream first: a pipeline fed by a connector drains only after
   * every pipeline feeding that connector has, since their items in flight still pass through it.
   */
  async drain(afterConnector: (connector: Connector) => Promise<void> = async () => undefined): Promise<void> {
    const drained = new Set<Pipeline>();
    const pending = new Set(this.connectors);
    const feeding = (pipeline: Pipeline) => this.connectors.filter((c) => c.to.includes(pipeline));
    while (drained.size < this.pipelines.length) {
      const ready = this.pipelines.filter((p) => !drained.has(p) && feeding(p).every((c) => !pending.has(c)));
      if (ready.length === 0) throw new Error('pipelines joined by connectors form a cycle');
      await Promise.all(ready.map((p) => p.drain()));
      for (const pipeline of ready) drained.add(pipeline);
      for (const running of [...pending]) {
        if (!running.from.every((p) => drained.has(p))) continue;
        pending.delete(running);
        await afterConnector(running.connector);
      }
    }
    for (const running of pending) await afterConnector(running.connector); // connectors of no pipeline (none pass resolve.ts)
  }
}
