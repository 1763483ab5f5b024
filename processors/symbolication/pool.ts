// A tiny pool of parsing workers (worker.ts). Jobs queue in arrival order and each worker takes
// one at a time, so a small map never waits behind a large one while another worker is idle.
// Workers start on first need, are unref'd (an idle pool never keeps the process alive) and are
// replaced if one dies; a dead worker's job fails, which its caller reports like a bad file.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { scopeExtraction, type ScopeIndex } from './scopes-worker.js';
import { workerMain, type BreakpadIndex, type DecodedSourceMap, type JobKind, type JobRequest, type JobResponse, type ProguardIndex } from './worker.js';

export interface JobResults {
  sourcemap: DecodedSourceMap;
  proguard: ProguardIndex;
  breakpad: BreakpadIndex;
  scopes: ScopeIndex;
}

interface Job {
  request: JobRequest;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  /** Ends the worker when its job runs past the pool's time limit. */
  timer?: NodeJS.Timeout;
}

/** What bounds each worker: its heap, and how long one parse may run. */
export interface WorkerLimits {
  memoryMb: number;
  timeoutMs: number;
}

const DEFAULT_LIMITS: WorkerLimits = { memoryMb: 1024, timeoutMs: 30_000 };

const WORKER_SOURCE = `(${workerMain.toString()})(require, ${scopeExtraction.toString()})`;
const TRACE_MAPPING_PATH = createRequire(import.meta.url).resolve('@jridgewell/trace-mapping');
const ACORN_PATH = createRequire(import.meta.url).resolve('acorn');

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly limits: WorkerLimits = DEFAULT_LIMITS,
  ) {}

  /** Parses `bytes` in a worker. The bytes are copied once, into a buffer the worker then owns. */
  run<K extends JobKind>(kind: K, bytes: Uint8Array): Promise<JobResults[K]> {
    if (this.closed) return Promise.reject(new Error('the symbolication worker pool is shut down'));
    const copy = new Uint8Array(bytes.byteLength);
    copy.set(bytes);
    return new Promise<JobResults[K]>((resolve, reject) => {
      this.queue.push({ request: { id: this.nextId++, kind, bytes: copy }, resolve: resolve as (r: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** Jobs waiting for a worker, and jobs being parsed. */
  get pending(): { queued: number; running: number } {
    return { queued: this.queue.length, running: this.slots.filter((s) => s.job !== undefined).length };
  }

  async close(): Promise<void> {
    this.closed = true;
    const closed = new Error('the symbolication worker pool is shut down');
    for (const job of this.queue.splice(0)) job.reject(closed);
    const slots = this.slots.splice(0);
    for (const slot of slots) slot.job?.reject(closed);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === undefined);
      if (slot === undefined) {
        if (this.slots.length >= this.size) return;
        slot = this.spawn();
      }
      const job = this.queue.shift() as Job;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage(job.request, [job.request.bytes.buffer]);
      // A parse that runs this long is a hostile or broken file: its worker goes, the queue goes on.
      slot.timer = setTimeout(() => this.stop(slot, new Error(`parsing took longer than ${this.limits.timeoutMs} ms`)), this.limits.timeoutMs);
      slot.timer.unref();
    }
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { traceMappingPath: TRACE_MAPPING_PATH, acornPath: ACORN_PATH },
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb },
    });
    const slot: Slot = { worker };
    worker.unref();
    worker.on('message', (response: JobResponse) => {
      const job = slot.job;
      if (job === undefined || job.request.id !== response.id) return;
      clearTimeout(slot.timer);
      slot.job = undefined;
      worker.unref();
      if (response.ok) job.resolve(response.result);
      else job.reject(new Error(response.message));
      this.dispatch();
    });
    worker.on('error', (error) => this.lost(slot, new Error(`the parsing worker failed: ${error.message}`)));
    worker.on('exit', (code) => this.lost(slot, new Error(`the parsing worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  /** A worker that died (or was ended): its job fails with `error`, the queue goes on with a new one. */
  private lost(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    clearTimeout(slot.timer);
    this.slots.splice(index, 1);
    slot.job?.reject(error);
    slot.job = undefined;
    if (!this.closed) this.dispatch();
  }

  private stop(slot: Slot, error: Error): void {
    this.lost(slot, error);
    void slot.worker.terminate();
  }
}
