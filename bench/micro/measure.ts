// What the micro-benchmarks share: the calling thread's CPU time, and the median of rounds.
import { readFileSync } from 'node:fs';

/**
 * CPU time of this (the calling) thread in µs: a collection's concurrent sweeping on the helper
 * threads, which process.cpuUsage() would count, belongs to whatever made the garbage.
 */
export function threadCpuMicros(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1000;
  } catch {
    const cpu = process.cpuUsage();
    return cpu.user + cpu.system;
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
