// The calling thread's CPU time, which the micro-benchmarks measure by.
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
