// What the alerting processor's instances share: it is created once per pipeline (events for
// new_issue, regression and error_spike; traces for latency), but a service runs one set of rule
// windows, one evaluation timer and one delivery loop per configured `alerting` component.
import { readSideOf } from '../../extensions/query/index.js';
import type { Host } from '../../src/engine/host.js';
import type { Signal } from '../../src/engine/item.js';
import type { AlertRule } from '../../extensions/alerts/alert-rules.js';
import type { AlertingConfig } from './config.js';
import { DeliveryLoop } from './delivery.js';
import { Evaluator } from './evaluator.js';
import { fireEscalation } from './escalations.js';
import { alertingMetrics, type AlertingMetrics } from './metrics.js';
import { newWindow, rebuild, type RuleWindow } from './windows.js';
import { alertsOf } from '../../extensions/alerts/index.js';
import { issueStatesOf } from '../../extensions/issues/index.js';

export class AlertingRuntime {
  readonly metrics: AlertingMetrics;
  readonly windows = new Map<string, RuleWindow>();
  /** Items received from here on are counted by the processor; earlier ones are rebuilt from storage. */
  startedAt = 0;
  /** Whether the windows of the rules that existed at start hold what was stored before it. */
  rebuilt = false;
  private readonly signals = new Map<Signal, number>();
  private readonly delivery: DeliveryLoop;
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
