// What one project may ask of alerting: how many rules it keeps, and how often it asks for a test
// notification. Both bound the work (and the outbound requests) a single key can cause.
import type { Dataset } from '../../src/engine/item.js';
import { RateLimiter } from '../../src/http/rate-limit.js';

export interface AlertLimitSettings {
  /** Most rules per project and dataset. */
  rulesPerProject: number;
  /** Test notifications per project and dataset per minute (as many at once). */
  testsPerMinute: number;
}

export const DEFAULT_ALERT_LIMITS: AlertLimitSettings = { rulesPerProject: 100, testsPerMinute: 6 };

export class RuleLimitError extends Error {
  constructor(
    readonly projectId: string,
    readonly limit: number,
  ) {
    super(
      `project ${projectId} already has ${limit} alert rules, the most allowed (rules_per_project in the alerting processor's limits): delete or reuse one`,
    );
    this.name = 'RuleLimitError';
  }
}

const tenantKey = (dataset: Dataset, projectId: string) => `${dataset}\u0000${projectId}`;

export class AlertLimits {
  private settings = DEFAULT_ALERT_LIMITS;
  /** Rules being written, per tenant: counted before their insert lands, so parallel creates cannot pass the cap together. */
  private readonly reserved = new Map<string, number>();
  private tests = new RateLimiter(DEFAULT_ALERT_LIMITS.testsPerMinute / 60, DEFAULT_ALERT_LIMITS.testsPerMinute);

  constructor(private readonly count: (dataset: Dataset, projectId: string) => number) {}

  configure(settings: AlertLimitSettings): void {
    this.settings = settings;
    this.tests = new RateLimiter(settings.testsPerMinute / 60, settings.testsPerMinute);
  }

  get rulesPerProject(): number {
    return this.settings.rulesPerProject;
  }

  /**
   * Holds a place for one more rule of a tenant while it is written; throws RuleLimitError when
   * the tenant is full. The place is given back by the returned function, once the rule is stored
   * (then it counts itself) or was not.
   */
  reserveRule(dataset: Dataset, projectId: string): () => void {
    const key = tenantKey(dataset, projectId);
    const pending = this.reserved.get(key) ?? 0;
    if (this.count(dataset, projectId) + pending >= this.settings.rulesPerProject) throw new RuleLimitError(projectId, this.settings.rulesPerProject);
    this.reserved.set(key, pending + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.reserved.get(key) ?? 1) - 1;
      if (left > 0) this.reserved.set(key, left);
      else this.reserved.delete(key);
    };
  }

  /** 0 when the tenant may send a test notification now, else the seconds until it may. */
  testWait(dataset: Dataset, projectId: string, now = Date.now()): number {
    return this.tests.take(tenantKey(dataset, projectId), now);
  }
}
