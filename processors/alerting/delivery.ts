// The delivery loop: reads due deliveries from the outbox, attempts them, and records the outcome —
// delivered, another attempt after an exponential backoff with jitter, or failed once the
// attempts are spent or the receiver refused for good. Every attempt of a delivery carries the
// same Idempotency-Key (its id), so a receiver can tell a retry from a new alert.
//
// Deliveries do not wait for each other: each starts as soon as there is room — at most
// `concurrency` in flight, `per_destination` to one scheme/host/port and `per_project` for one
// project — and a finished one makes room for the next at once. So a receiver that never answers
// holds a couple of requests for its timeout, and other destinations and projects go on.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { DestinationGuard } from '../../src/net/destinations.js';
import type { Alerts } from '../../extensions/alerts/alerts.js';
import type { DueDelivery } from '../../extensions/alerts/alert-outbox.js';
import type { DeliveryConfig } from './config.js';
import type { AlertingMetrics } from './metrics.js';
import { attempt } from './send.js';

/** Due deliveries read per outbox query. */
const PAGE = 100;
/** Due deliveries held in memory (waiting for room or in flight); the outbox keeps the rest. */
const MAX_HELD = 1_000;

export function backoff(config: DeliveryConfig, attempts: number, random = Math.random()): number {
  const full = Math.min(config.max_backoff_ms, config.initial_backoff_ms * 2 ** Math.max(0, attempts - 1));
  return Math.round(full / 2 + (random * full) / 2);
}

/** Where a delivery's request goes (scheme, host and port; every email the one SMTP server), or undefined for a log line. */
function destinationOf(delivery: DueDelivery): string | undefined {
  if (delivery.action.type === 'log') return undefined;
  if (delivery.action.type === 'email') return 'smtp:';
  try {
    const url = new URL(delivery.action.url);
    return `${url.protocol}//${url.host}`;
  } catch {
    return undefined;
  }
}

const increment = (counts: Map<string, number>, key: string, by: number) => {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
};

export class DeliveryLoop {
  private timer?: NodeJS.Timeout;
  private fetching?: Promise<void>;
  private again = false;
  private stopped = true;
  /** Due deliveries read from the outbox and not settled yet, oldest due first. */
  private readonly held = new Map<string, DueDelivery>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly byDestination = new Map<string, number>();
  private readonly byProject = new Map<string, number>();
  private abort = new AbortController();

  constructor(
    private readonly alerts: Alerts,
    private readonly config: DeliveryConfig,
    private readonly options: {
      logger: Logger;
      metrics: AlertingMetrics;
      guard: DestinationGuard;
      /** With a control plane: the partitions whose shared firings this node sends (delivery-group.ts). */
      owned?: () => number[];
    },
  ) {}

  start(): void {
    this.stopped = false;
    this.abort = new AbortController();
    setMaxListeners(0, this.abort.signal); // one listener per request in flight, bounded by concurrency
    this.alerts.setDeliverer(() => this.wake());
    this.wake();
  }

  /** Stops reading the outbox; requests in flight are abandoned, unrecorded: they stay due. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.alerts.setDeliverer(undefined);
    clearTimeout(this.timer);
    this.abort.abort();
    await this.fetching;
    await Promise.all(this.inFlight.values());
    this.held.clear();
  }

  /** Reads the outbox for due deliveries (once at a time: a wake during a read reads again after it). */
  wake(): void {
    if (this.stopped) return;
    if (this.fetching) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.fetching = this.fetch()
      .catch((error: unknown) => this.options.logger.error({ err: error }, 'alert delivery loop failed; retrying'))
      .finally(() => {
        this.fetching = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        } else if (!this.stopped && this.timer === undefined) this.schedule(this.config.poll_interval_ms);
      });
  }

  private async fetch(): Promise<void> {
    this.timer = undefined;
    for (;;) {
      this.again = false;
      if (this.stopped || this.held.size >= MAX_HELD) break;
      const due = await this.alerts.outbox.due(Date.now(), Math.min(PAGE, MAX_HELD - this.held.size), [...this.held.keys()], this.options.owned?.());
      for (const delivery of due) this.held.set(delivery.id, delivery);
      this.dispatch();
      if (due.length < PAGE) break;
    }
    if (this.stopped) return;
    const { at, pending } = await this.alerts.outbox.nextDue([...this.held.keys()], this.options.owned?.());
    this.options.metrics.pending.set(pending);
    this.schedule(at === null ? this.config.poll_interval_ms : Math.min(this.config.poll_interval_ms, Math.max(0, at - Date.now())));
  }

  private schedule(wait: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), wait);
    this.timer.unref();
  }

  /** Starts every held delivery there is room for, oldest due first. */
  private dispatch(): void {
    const owned = this.options.owned?.();
    for (const delivery of this.held.values()) {
      if (this.stopped || this.inFlight.size >= this.config.concurrency) return;
      if (this.inFlight.has(delivery.id)) continue;
      // A shared firing of a partition this node no longer owns (a rebalance since it was read): its new owner sends it.
      if (delivery.shared_partition !== null && owned !== undefined && !owned.includes(delivery.shared_partition)) {
        this.held.delete(delivery.id);
        continue;
      }
      const destination = destinationOf(delivery);
      const project = `${delivery.dataset}\u0000${delivery.project_id}`;
      if (destination !== undefined && (this.byDestination.get(destination) ?? 0) >= this.config.per_destination) continue;
      if ((this.byProject.get(project) ?? 0) >= this.config.per_project) continue;
      if (destination !== undefined) increment(this.byDestination, destination, 1);
      increment(this.byProject, project, 1);
      const running = this.deliver(delivery)
        .catch((error: unknown) => this.options.logger.error({ err: error, delivery: delivery.id }, 'recording an alert delivery failed; it stays due'))
        .finally(() => {
          if (destination !== undefined) increment(this.byDestination, destination, -1);
          increment(this.byProject, project, -1);
          this.inFlight.delete(delivery.id);
          this.held.delete(delivery.id);
          this.dispatch();
          // Room in memory again, or deliveries left in the outbox: read it.
          if (this.held.size < MAX_HELD / 2) this.wake();
        });
      this.inFlight.set(delivery.id, running);
    }
  }

  private async deliver(delivery: DueDelivery): Promise<void> {
    const result = await attempt(delivery.action, delivery.payload, delivery.id, {
      timeoutMs: this.config.timeout_ms,
      connectTimeoutMs: this.config.connect_timeout_ms,
      guard: this.options.guard,
      logger: this.options.logger,
      mailer: this.alerts.mailer,
      signal: this.abort.signal,
    });
    if ('aborted' in result) return;
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
      this.options.logger.debug(
        { delivery: delivery.id, rule: delivery.rule_id, action, attempts, error: result.error, detail: result.detail },
        'alert delivery will be retried',
      );
    } else {
      await this.alerts.outbox.settle(delivery.id, { status: 'failed', attempts, at, error: result.error });
      this.options.metrics.deliveries.inc({ action, outcome: 'failed' });
      this.options.logger.warn(
        { delivery: delivery.id, rule: delivery.rule_id, action, attempts, error: result.error, detail: result.detail },
        'alert delivery failed for good',
      );
    }
  }
}
