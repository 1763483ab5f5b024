// Resident memory of a process, read from /proc/<pid>/status: VmRSS now, VmHWM (the kernel's
// high-water mark of RSS over the process's life), sampled on a timer during load phases.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export interface Rss {
  rssMB: number;
  hwmMB: number;
  /** Anonymous memory (heaps, buffers): RSS less the mapped files, such as the DocStore's LMDB map. */
  anonMB: number;
  fileMB: number;
}

export function readRss(pid: number): Rss {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMB: kb('VmRSS') / 1024, hwmMB: kb('VmHWM') / 1024, anonMB: kb('RssAnon') / 1024, fileMB: kb('RssFile') / 1024 };
}

/** Samples RSS every `intervalMs` until stopped; marks split the samples into named phases. */
export class RssSampler {
  private readonly samples: Array<{ at: number; mb: number; anonMB: number; phase: string }> = [];
  private timer?: NodeJS.Timeout;
  private phase = 'start';

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 100,
  ) {}

  start(): this {
    this.take();
    this.timer = setInterval(() => this.take(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  mark(phase: string): void {
    this.phase = phase;
    this.take();
  }

  private take(): void {
    try {
      const rss = readRss(this.pid);
      this.samples.push({ at: Date.now(), mb: rss.rssMB, anonMB: rss.anonMB, phase: this.phase });
    } catch {
      // the process is gone
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Peak sampled RSS of a phase (or of all phases). */
  peak(phase?: string): number {
    const values = this.samples.filter((s) => !phase || s.phase === phase).map((s) => s.mb);
    return values.length ? Math.max(...values) : Number.NaN;
  }

  /** Steady RSS of a phase: the median of the samples in its second half (past warm-up and growth). */
  steady(phase: string, of: 'mb' | 'anonMB' = 'mb'): number {
    const values = this.samples.filter((s) => s.phase === phase).map((s) => s[of]);
    if (!values.length) return Number.NaN;
    const tail = values.slice(Math.floor(values.length / 2)).sort((a, b) => a - b);
    return tail[Math.floor(tail.length / 2)];
  }

  last(): number {
    return this.samples.at(-1)?.mb ?? Number.NaN;
  }
}

/** Total size of the files under a directory (recursively), optionally only those whose name matches. */
export function directoryBytes(dir: string, match: (name: string) => boolean = () => true): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += directoryBytes(path, match);
    else if (entry.isFile() && match(entry.name)) total += statSync(path).size;
  }
  return total;
}

/** The DuckDB database file plus its write-ahead log. */
export function duckdbBytes(dataDir: string): number {
  return directoryBytes(dataDir, (name) => name.startsWith('faultline.duckdb'));
}

/** The DocStore's LMDB file (event documents): blocks allocated on disk, as the file is sparse. */
export function docStoreBytes(dataDir: string): number {
  const path = join(dataDir, 'docs', 'data.mdb');
  return existsSync(path) ? statSync(path).blocks * 512 : 0;
}

/** CPU seconds (user + system, all threads) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (USER_HZ = 100)
}

/**
 * The yardstick of issue #18: CPU time (user + system, all threads) of a process over a window,
 * read from /proc/<pid>/stat at `start()` and `stop()`. Per item it is steady where throughput
 * on a shared 2-core machine is not.
 */
export class CpuWindow {
  private startSeconds = Number.NaN;
  seconds = Number.NaN;

  constructor(private readonly pid: number) {}

  start(): void {
    this.startSeconds = cpuSeconds(this.pid);
  }

  stop(): number {
    this.seconds = cpuSeconds(this.pid) - this.startSeconds;
    return this.seconds;
  }
}

/** CPU per item: the figure the yardstick prints, in µs. */
export interface CpuPerItem {
  /** CPU seconds over the measured window (user + system, all threads). */
  cpuSeconds: number;
  items: number;
  microsPerItem: number;
}

export function cpuPerItem(cpuSeconds: number, items: number): CpuPerItem {
  return { cpuSeconds, items, microsPerItem: items > 0 ? (cpuSeconds * 1e6) / items : Number.NaN };
}
