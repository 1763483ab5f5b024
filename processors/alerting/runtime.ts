// What the alerting processor's instances share: it is created once per pipeline (events for
// new_issue, regression and error_spike; traces for latency), but a service runs one set of rule
// windows, one evaluation timer and one delivery loop per configured `alerting` component.
import { readSideOf } from '../../extensions/query/index.js';
import type { Host } from '../../src/engine/host.js';
import type { Signal } from '../../src/engine/item.js';
import type { AlertRule, StateChange } from '../../extensions/alerts/alert-rules.js';
import type { NewFiring } from '../../extensions/alerts/alert-outbox.js';
import type { AlertingConfig } from './config.js';
import { DeliveryLoop } from './delivery.js';
import { DeliveryGroup } from './delivery-group.js';
import { controlPlaneOf } from '../../extensions/control-plane/index.js';
import { Evaluator } from './evaluator.js';
import { fireEscalation } from './escalations.js';
import { alertingMetrics, type AlertingMetrics } from './metrics.js';
import { newWindow, rebuild, type RuleWindow } from './windows.js';
import { alertsOf } from '../../extensions/alerts/index.js';
import { issueStatesOf } from '../../extensions/issues/index.js';

/** How long a batch's firings may take to reach Kafka before the batch fails (and is retried). */
const SHARE_TIMEOUT_MS = 10_000;

export class AlertingRuntime {
  readonly metrics: AlertingMetrics;
  readonly windows = new Map<string, RuleWindow>();
  /** Items received from here on are counted by the processor; earlier ones are rebuilt from storage. */
  startedAt = 0;
  /** Whether the windows of the rules that existed at start hold what was stored before it. */
  rebuilt = false;
  private readonly signals = new Map<Signal, number>();
  private readonly delivery: DeliveryLoop;
  /** With a control plane: which shared firings this node sends. */
  private group?: DeliveryGroup;
  private readonly evaluator: Evaluator;
  private timer?: NodeJS.Timeout;
  private evaluating?: Promise<void>;
  private stopHearingEscalations?: () => void;

  constructor(
    readonly id: string,
    readonly config: AlertingConfig,
    readonly host: Host,
  ) {
    this.metrics = alertingMetrics(host.metrics.registry);
    // The service configured alertsOf(host) from this same section (allow_private_destinations).
    this.delivery = new DeliveryLoop(alertsOf(host), config.delivery, {
      guard: alertsOf(host).destinations,
      logger: host.logger,
      metrics: this.metrics,
      owned: () => (this.group ? this.group.owned() : []),
    });
    this.evaluator = new Evaluator(this);
  }

  /** The window of a counting rule, started afresh when the rule's conditions changed. */
  window(rule: AlertRule): RuleWindow {
    let window = this.windows.get(rule.id);
    if (!window || window.since !== rule.counting_since) this.windows.set(rule.id, (window = newWindow(rule)));
    return window;
  }

  handles(signal: Signal): boolean {
    return (this.signals.get(signal) ?? 0) > 0;
  }

  acquire(signal: Signal): void {
    const first = this.signals.size === 0;
    this.signals.set(signal, (this.signals.get(signal) ?? 0) + 1);
    if (signal === 'events') this.stopHearingEscalations ??= issueStatesOf(this.host).ignores.onEscalated((e) => fireEscalation(this, e));
    if (!first) return;
    this.startedAt = Date.now();
    const plane = controlPlaneOf(this.host);
    if (plane) {
      this.group = new DeliveryGroup(plane, this.config.delivery, this.host.logger, this.metrics.partitions, () => this.wake());
      this.group.start();
    }
    this.delivery.start();
    this.timer = setInterval(() => void this.evaluate(), this.config.evaluation_interval_ms);
    this.timer.unref();
  }

  async release(signal: Signal): Promise<void> {
    const left = (this.signals.get(signal) ?? 1) - 1;
    if (left > 0) this.signals.set(signal, left);
    else this.signals.delete(signal);
    if (!this.signals.has('events')) {
      this.stopHearingEscalations?.();
      this.stopHearingEscalations = undefined;
    }
    if (this.signals.size > 0) return;
    clearInterval(this.timer);
    await this.evaluating;
    await this.delivery.stop();
    await this.group?.stop();
    this.group = undefined;
  }

  /**
   * Records firings of issue rules (and their rules' state): with a control plane each new one is
   * shared, and this resolves only once it is in Kafka, so the offsets of the events behind it are
   * committed after it is where every worker sees it. Resolves with the keys newly recorded here.
   */
  async recordIssueFirings(firings: NewFiring[], states: StateChange[]): Promise<string[]> {
    const plane = controlPlaneOf(this.host);
    const recorded = await alertsOf(this.host).outbox.record(firings, states, { share: plane !== undefined });
    // Also for firings recorded before (a retried batch): their records may not have gone out yet.
    if (plane && firings.length) await plane.sent(SHARE_TIMEOUT_MS);
    return recorded;
  }

  /** New firings are in the outbox: deliver them now. */
  wake(): void {
    alertsOf(this.host).wake();
  }

  /** One evaluation round (never two at once); the first rebuilds the windows once storage is readable. */
  evaluate(now = Date.now()): Promise<void> {
    this.evaluating ??= this.round(now).finally(() => (this.evaluating = undefined));
    return this.evaluating;
  }

  private async round(now: number): Promise<void> {
    try {
      if (!this.rebuilt) {
        const storage = readSideOf(this.host);
        if (!storage) return; // the exporters are still starting
        for (const type of ['error_spike', 'latency'] as const) {
          if (!this.handles(type === 'latency' ? 'traces' : 'events')) continue;
          for (const rule of alertsOf(this.host).rules.enabled(type)) await rebuild(rule, this.window(rule), storage.windowCounts, this.startedAt);
        }
        this.rebuilt = true;
      }
      await this.evaluator.run(now);
    } catch (error) {
      this.host.logger.error({ err: error, processor: this.id }, 'alert evaluation failed; trying again at the next interval');
    }
  }
}

const runtimes = new WeakMap<Host, Map<string, AlertingRuntime>>();

/** The runtime of the `alerting` component `id` in this service, shared by its pipelines. */
export function runtimeFor(host: Host, id: string, config: AlertingConfig): AlertingRuntime {
  let byId = runtimes.get(host);
  if (!byId) runtimes.set(host, (byId = new Map()));
  let runtime = byId.get(id);
  if (!runtime) byId.set(id, (runtime = new AlertingRuntime(id, config, host)));
  return runtime;
}
