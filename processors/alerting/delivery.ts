// The delivery loop: reads due deliveries from the outbox, attempts each (a few at a time), and
// records the outcome — delivered, another attempt after an exponential backoff with jitter, or
// failed once the attempts are spent or the receiver refused for good. Every attempt of a delivery
// carries the same Idempotency-Key (its id), so a receiver can tell a retry from a new alert.
import type { Logger } from 'pino';
import type { Alerts } from '../../src/storage/alerts.js';
import type { DueDelivery } from '../../src/storage/alert-outbox.js';
import type { DeliveryConfig } from './config.js';
import type { AlertingMetrics } from './metrics.js';
import { attempt } from './send.js';

export function backoff(config: DeliveryConfig, attempts: number, random = Math.random()): number {
  const full = Math.min(config.max_backoff_ms, config.initial_backoff_ms * 2 ** Math.max(0, attempts - 1));
  return Math.round(full / 2 + (random * full) / 2);
}

export class DeliveryLoop {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = true;
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly alerts: Alerts,
    private readonly config: DeliveryConfig,
    private readonly options: { allowPrivate: boolean; logger: Logger; metrics: AlertingMetrics },
  ) {}

  start(): void {
    this.stopped = false;
    this.alerts.setDeliverer(() => this.wake());
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.alerts.setDeliverer(undefined);
    clearTimeout(this.timer);
    await this.running;
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.pump()
      .catch((error: unknown) => this.options.logger.error({ err: error }, 'alert delivery loop failed; retrying'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async pump(): Promise<void> {
    for (;;) {
      this.again = false;
      const due = (await this.alerts.outbox.due(Date.now(), 100)).filter((d) => !this.inFlight.has(d.id));
      if (due.length === 0 || this.stopped) break;
      await this.sendAll(due);
    }
    if (this.stopped) return;
    const { at, pending } = await this.alerts.outbox.nextDue();
    this.options.metrics.pending.set(pending);
    const wait = at === null ? this.config.poll_interval_ms : Math.min(this.config.poll_interval_ms, Math.max(0, at - Date.now()));
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
  }

  private async sendAll(due: DueDelivery[]): Promise<void> {
    const queue = [...due];
    const worker = async () => {
      for (let next = queue.shift(); next && !this.stopped; next = queue.shift()) await this.deliver(next);
    };
    await Promise.all(Array.from({ length: Math.min(this.config.concurrency, queue.length) }, worker));
  }

  private async deliver(delivery: DueDelivery): Promise<void> {
    this.inFlight.add(delivery.id);
    try {
      const result = await attempt(delivery.action, delivery.payload, delivery.id, {
        timeoutMs: this.config.timeout_ms,
        allowPrivate: this.options.allowPrivate,
        logger: this.options.logger,
      });
      const attempts = delivery.attempts + 1;
      const at = Date.now();
      const action = delivery.action.type;
      if (result.ok) {
        await this.alerts.outbox.settle(delivery.id, { status: 'delivered', attempts, at });
        this.options.metrics.deliveries.inc({ action, outcome: 'delivered' });
      } else if (result.retry && attempts < this.config.attempts) {
        await this.alerts.outbox.settle(delivery.id, {
          status: 'pending',
          attempts,
          at,
          error: result.error,
          nextAttemptAt: at + backoff(this.config, attempts),
        });
        this.options.metrics.deliveries.inc({ action, outcome: 'retried' });
      } else {
        await this.alerts.outbox.settle(delivery.id, { status: 'failed', attempts, at, error: result.error });
        this.options.metrics.deliveries.inc({ action, outcome: 'failed' });
        this.options.logger.warn({ delivery: delivery.id, rule: delivery.rule_id, action, attempts, error: result.error }, 'alert delivery failed for good');
      }
    } finally {
      this.inFlight.delete(delivery.id);
    }
  }
}
