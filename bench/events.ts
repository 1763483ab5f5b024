// Events: realistic event bodies posted one per request at a fixed concurrency, to Faultline's
// POST /v1/events and, with the same bodies and driver, to the bare node:http baseline.
import { startBaseline } from './baseline-server.js';
import { drive, settle, type DriveResult } from './driver.js';
import { cpuPerItem, CpuWindow, type CpuPerItem } from './memory.js';
import type { ChildService } from './service.js';

export interface EventsLoadOptions {
  bodies: Buffer[];
  connections: number;
  /** Seconds of warm-up (not measured) and of measurement. */
  warmup: number;
  duration: number;
}

/** Warm-up, let the warm-up's requests finish, then the measured run; bodies taken in turn. */
async function load(url: string, headers: Record<string, string>, options: EventsLoadOptions, onMeasureStart?: () => void): Promise<DriveResult> {
  let i = 0;
  const nextBody = () => options.bodies[i++ % options.bodies.length];
  if (options.warmup > 0) await settle(await drive({ url, connections: options.connections, duration: options.warmup, headers, nextBody }));
  onMeasureStart?.();
  return drive({ url, connections: options.connections, duration: options.duration, headers, nextBody });
}

/** The bare server (a child process): read the body, JSON.parse, answer 202; its CPU per accepted request over the measured run. */
export async function measureBareEvents(options: EventsLoadOptions): Promise<DriveResult & { cpu: CpuPerItem }> {
  const bare = await startBaseline();
  try {
    const window = new CpuWindow(bare.pid);
    const result = await load(`${bare.url}/v1/events`, { 'content-type': 'application/json' }, options, () => window.start());
    return { ...result, cpu: cpuPerItem(window.stop(), result.ok) };
  } finally {
    await bare.stop();
  }
}

/** Faultline's POST /v1/events on a running child service. */
export function measureFaultlineEvents(service: ChildService, options: EventsLoadOptions, onMeasureStart?: () => void): Promise<DriveResult> {
  const headers = { authorization: `Bearer ${service.liveKey}`, 'content-type': 'application/json' };
  return load(`${service.baseUrl}/v1/events`, headers, options, onMeasureStart);
}
