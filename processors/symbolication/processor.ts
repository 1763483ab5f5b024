// Symbolicates error events' stack traces: JavaScript frames through source maps, JVM frames
// through ProGuard/R8 mappings, native frames through Breakpad symbols. The received frames are
// kept as `raw_stacktrace`; `exception.stacktrace` gets the symbolicated ones. A frame that cannot
// be resolved stays as received and the event gets a processing error; an event is never
// rejected or dropped here.
//
// Events with nothing to symbolicate take a synchronous path: one pass over their frames, no
// promise, no allocation. The others are symbolicated concurrently, each waiting only for its own
// artifacts.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { Processor } from '../../src/engine/component.js';
import { recordItems, type Item, type RecordItem } from '../../src/engine/item.js';
import type { ArtifactLookup } from '../../src/records/artifact.js';
import type { ErrorEvent, ExceptionInfo, StackFrame } from '../../src/records/event.js';
import { ArtifactFinder, scopeOf } from './artifacts.js';
import { nativeImages, symbolicateNative } from './breakpad.js';
import { ArtifactCache } from './cache.js';
import type { SymbolicationConfig } from './config.js';
import { ProcessingErrors, type EventJob, type Platform, type Services } from './context.js';
import { isJavaScriptFrame, symbolicateJavaScript } from './javascript.js';
import { WorkerPool } from './pool.js';
import { proguardUuids, symbolicateJava } from './proguard.js';

export const SYMBOLICATION_METRICS = [
  'faultline_symbolication_frames_total',
  'faultline_symbolication_processing_errors_total',
  'faultline_symbolication_parse_seconds',
  'faultline_symbolication_cache_bytes',
  'faultline_symbolication_cache_requests_total',
] as const;

interface SymbolicationMetrics {
  frames: Counter<'processor' | 'platform' | 'result'>;
  errors: Counter<'processor' | 'type'>;
  parse: Histogram<'processor' | 'kind' | 'result'>;
  cacheBytes: Gauge<'processor'>;
  cacheRequests: Counter<'processor' | 'result'>;
}

/** The metrics, registered once per registry (one processor per events pipeline shares them, by label). */
function metricsIn(registry: Registry): SymbolicationMetrics {
  const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined;
  return {
    frames:
      existing('faultline_symbolication_frames_total') ??
      new Counter({
        name: 'faultline_symbolication_frames_total',
        help: 'Frames the symbolication processor looked at, by platform and result (symbolicated, unresolved)',
        labelNames: ['processor', 'platform', 'result'] as const,
        registers: [registry],
      }),
    errors:
      existing('faultline_symbolication_processing_errors_total') ??
      new Counter({
        name: 'faultline_symbolication_processing_errors_total',
        help: 'Processing errors the symbolication processor added to events, by type',
        labelNames: ['processor', 'type'] as const,
        registers: [registry],
      }),
    parse:
      existing('faultline_symbolication_parse_seconds') ??
      new Histogram({
        name: 'faultline_symbolication_parse_seconds',
        help: 'Time to parse an artifact (worker and main thread), by kind and result',
        labelNames: ['processor', 'kind', 'result'] as const,
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      }),
    cacheBytes:
      existing('faultline_symbolication_cache_bytes') ??
      new Gauge({
        name: 'faultline_symbolication_cache_bytes',
        help: 'Estimated memory held by parsed artifacts in the symbolication cache',
        labelNames: ['processor'] as const,
        registers: [registry],
      }),
    cacheRequests:
      existing('faultline_symbolication_cache_requests_total') ??
      new Counter({
        name: 'faultline_symbolication_cache_requests_total',
        help: 'Parsed-artifact cache requests by result (hit, miss, shared: joined a parse already running)',
        labelNames: ['processor', 'result'] as const,
        registers: [registry],
      }),
  };
}

export interface SymbolicationOptions {
  /** The processor's id, as a metrics label. */
  id: string;
  artifacts: ArtifactLookup;
  registry?: Registry;
  logger?: Logger;
}

export class SymbolicationProcessor implements Processor {
  readonly services: Services;
  private readonly metrics: SymbolicationMetrics | undefined;
  private readonly logger: Logger | undefined;
  private readonly id: string;
  private readonly reported = { hits: 0, misses: 0, shared: 0 };

  constructor(
    readonly config: SymbolicationConfig,
    options: SymbolicationOptions,
  ) {
    this.id = options.id;
    this.logger = options.logger;
    this.metrics = options.registry ? metricsIn(options.registry) : undefined;
    const metrics = this.metrics;
    const id = this.id;
    this.services = {
      finder: new ArtifactFinder(options.artifacts, config.lookup_ttl_ms),
      cache: new ArtifactCache(config.cache_bytes, config.failed_ttl_ms),
      pool: new WorkerPool(config.workers, { memoryMb: config.worker_memory_mb, timeoutMs: config.parse_timeout_ms }),
      config,
      countFrames(platform: Platform, result, n) {
        if (n > 0) metrics?.frames.inc({ processor: id, platform, result }, n);
      },
      observeParse(kind, seconds, ok) {
        metrics?.parse.observe({ processor: id, kind, result: ok ? 'ok' : 'failed' }, seconds);
      },
    };
  }

  process(items: Item[]): void | Promise<void> {
    let pending: Promise<void>[] | undefined;
    for (const item of recordItems('events', items)) {
      if (item.outcome !== undefined || !needsSymbolication(item.data)) continue;
      // A project with no uploaded file at all has nothing to find (and nothing to report missing).
      if (this.services.finder.lookup.projectHasFiles?.(item.tenant.dataset, item.tenant.projectId) === false) continue;
      (pending ??= []).push(this.symbolicate(item));
    }
    if (pending === undefined) return;
    return Promise.all(pending).then(() => this.updateCacheMetrics());
  }

  async shutdown(): Promise<void> {
    await this.services.pool.close();
    this.services.cache.clear();
    this.metrics?.cacheBytes.remove({ processor: this.id });
  }

  /** Symbolicates one event in place, every exception of its chain (exported for tests and tools through the processor). */
  async symbolicate(item: RecordItem<'events'>): Promise<void> {
    const event = item.data;
    const jobs: Promise<void>[] = [];
    let path = 'exception';
    const deadline = performance.now() + this.config.event_budget_ms;
    for (let exception: ExceptionInfo | undefined = event.exception; exception !== undefined; exception = exception.cause) {
      jobs.push(this.symbolicateException(item, exception, path, deadline));
      path += '.cause';
    }
    await Promise.all(jobs);
  }

  private async symbolicateException(item: RecordItem<'events'>, exception: ExceptionInfo, path: string, deadline: number): Promise<void> {
    const event = item.data;
    const raw = exception.stacktrace ?? [];
    const job: EventJob = { event, exception, scope: scopeOf(item.tenant, event), raw, replaced: new Array(raw.length), errors: new ProcessingErrors(path) };
    let finished = true;
    try {
      const work: Promise<void>[] = [];
      if (raw.some(isJavaScriptFrame)) work.push(symbolicateJavaScript(this.services, job));
      const uuids = proguardUuids(event);
      if (uuids !== undefined) work.push(symbolicateJava(this.services, job, uuids));
      const images = nativeImages(event);
      if (images !== undefined && raw.some((f) => f.instruction_addr !== undefined)) work.push(symbolicateNative(this.services, job, images));
      finished = await beforeDeadline(Promise.all(work), deadline);
    } catch (error) {
      // A bug here must not cost the event: it goes on with the frames it has.
      this.logger?.error({ err: error, event_id: event.id }, 'symbolication failed');
    }
    // Past the budget the event goes on with what was resolved; what resolves later is not used.
    const replaced = finished ? job.replaced : job.replaced.slice();
    if (!finished) {
      const first = replaced.findIndex((frames) => frames === undefined);
      job.errors.add(
        'time_budget_exceeded',
        first < 0 ? 0 : first,
        '',
        `symbolication took longer than ${this.config.event_budget_ms} ms (event_budget_ms): frames not resolved by then are as received`,
      );
    }
    const outputIndex = new Array<number>(raw.length);
    let frames: StackFrame[] | undefined;
    let at = 0;
    for (let i = 0; i < raw.length; i++) {
      outputIndex[i] = at;
      const replacement = replaced[i];
      if (replacement !== undefined) frames ??= raw.slice(0, i);
      if (frames !== undefined) frames.push(...(replacement ?? [raw[i]]));
      at += replacement?.length ?? 1;
    }
    if (frames !== undefined) {
      // The raised exception's received frames are the event's raw_stacktrace; a cause keeps its own.
      if (exception === event.exception) event.raw_stacktrace = exception.stacktrace;
      else exception.raw_stacktrace = exception.stacktrace;
      exception.stacktrace = frames;
    }
    if (job.errors.size > 0) {
      const errors = job.errors.list(outputIndex);
      event.processing_errors.push(...errors);
      for (const e of errors) this.metrics?.errors.inc({ processor: this.id, type: e.type });
    }
  }

  private updateCacheMetrics(): void {
    if (this.metrics === undefined) return;
    const { cache } = this.services;
    this.metrics.cacheBytes.set({ processor: this.id }, cache.bytes);
    for (const result of ['hits', 'misses', 'shared'] as const) {
      const delta = cache.stats[result] - this.reported[result];
      if (delta > 0) this.metrics.cacheRequests.inc({ processor: this.id, result: result === 'hits' ? 'hit' : result === 'misses' ? 'miss' : 'shared' }, delta);
      this.reported[result] = cache.stats[result];
    }
  }
}

/** Whether `work` settles before `deadline` (a performance.now() time); a rejection is passed on. */
async function beforeDeadline(work: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - performance.now()));
  });
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether an event has anything to symbolicate: a JavaScript frame with a file, line and column,
 * a ProGuard mapping named in debug_meta, or a native frame and image. Synchronous and
 * allocation-free: the fast path of every event without such frames.
 */
export function needsSymbolication(event: ErrorEvent): boolean {
  const images = event.debug_meta?.images;
  if (images !== undefined) {
    for (const image of images) {
      if (image.type === 'proguard') return true;
    }
  }
  let nativeFrames = false;
  for (let exception: ExceptionInfo | undefined = event.exception; exception !== undefined; exception = exception.cause) {
    for (const frame of exception.stacktrace ?? []) {
      if (isJavaScriptFrame(frame)) return true;
      if (frame.instruction_addr !== undefined) nativeFrames = true;
    }
  }
  if (nativeFrames && images !== undefined) {
    for (const image of images) if (image.type === 'elf' || image.type === 'macho' || image.type === 'pe') return true;
  }
  return false;
}
