// The machine, the goals, and the printed table. The same figures go to bench/results/latest.json.
import { readFileSync } from 'node:fs';
import { cpus, totalmem, platform, arch, release } from 'node:os';
import type { LevelName, LevelResult } from './levels.js';
import type { OverloadResult } from './overload.js';
import type { ProfileSummary } from './profile.js';
import type { ReadTiming } from './reads.js';
import type { SymbolicationResult } from './symbolication.js';
import type { GroupingResult } from './grouping.js';
import type { ScrubbingResult } from './scrubbing.js';
import { formatFeaturePhase } from './feature-report.js';
import { n0, n1, table } from './table.js';
import type { IssuesResult } from './issues.js';
import type { ReplaysResult } from './replays.js';
import type { AlertingResult } from './alerting.js';
import type { MonitorsResult } from './monitors.js';
import type { KafkaBenchResult } from './kafka.js';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
}

export function machineInfo(): Machine {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux
  }
  return { cpu, cores: cpus().length, memoryGiB: totalmem() / 2 ** 30, node: process.version, os: `${platform()} ${release()} ${arch()}` };
}

export interface PhaseMemory {
  steadyMB: number;
  steadyAnonMB: number;
  peakMB: number;
  /** CPU cores the service used while measured (user + system time / wall time). */
  cpuCores: number;
}

export interface Results {
  benchmark: 'faultline';
  mode: 'quick' | 'full';
  startedAt: string;
  wallSeconds: number;
  machine: Machine;
  source: { commit: string; changed: string[] };
  settings: Record<string, unknown>;
  events?: {
    bodies: { count: number; averageBytes: number; p5Bytes: number; p95Bytes: number; distinctErrors: number; releases: number };
    /** Requests/s of the closed loop (one event per POST /v1/events), Faultline and the bare server. */
    capacity: number;
    bareCapacity: number;
    memory: PhaseMemory;
  };
  /** CPU per item at 25 %, 70 % and 100 % of capacity, each load beside its baseline (levels.ts). */
  levels?: LevelsRow[];
  overload?: OverloadResult;
  spans?: {
    requestBytes: number;
    spansPerRequest: number;
    memory: PhaseMemory;
  };
  storage?: {
    rawJsonBytesPerEvent: number;
    duckdb:
      | {
          events: number;
          bytes: number;
          bytesPerEvent: number;
          ratioToRaw: number;
          usedBytesPerEvent: number;
          docStoreBytesPerEvent: number;
          totalRatioToRaw: number;
        }
      | { na: string };
    parquet: { events: number; bytes: number; files: number; bytesPerEvent: number; ratioToRaw: number; eventsPerSecond: number } | { na: string };
  };
  reads?: {
    events: number;
    spans: number;
    traces: number;
    /** Wall seconds of the load over HTTP, and the rates it reached. */
    loadSeconds: number;
    eventsPerSecondLoaded: number;
    spansPerSecondLoaded: number;
    /** The rows of an earlier run with the same --data (large.ts). */
    reused: boolean;
    databaseBytes: number;
    cases: ReadTiming[];
    /** RSS of the service child after the load, before the reads. */
    rssMB: number;
  };
  memory?: { steadyMB: number; steadyAnonMB: number; peakMB: number; note: string };
  symbolication?: SymbolicationResult;
  issues?: IssuesResult;
  replays?: ReplaysResult;
  grouping?: GroupingResult;
  scrubbing?: ScrubbingResult;
  alerting?: AlertingResult;
  monitors?: MonitorsResult;
  kafka?: KafkaBenchResult | { na: string };
  /** CPU per item accepted, service against baseline (see YardstickRow). */
  yardstick?: YardstickRow[];
  goals: Goal[];
  profiles?: Record<string, ProfileSummary>;
}

/**
 * The yardstick (issue #18): the service child's CPU time (user + system, all threads, from
 * /proc/<pid>/stat before and after the measured load) per item it accepted, beside the same
 * figure for the baseline measured in the same run.
 */
export interface YardstickRow {
  signal: 'events' | 'spans' | 'replay chunks (JSON events)' | 'replay chunks (raw gzip)';
  /** Service CPU seconds over the measured load, and the items accepted in it. */
  cpuSeconds: number;
  items: number;
  microsPerItem: number;
  baseline: string;
  baselineMicrosPerItem: number;
  /** Faultline's CPU per item over the baseline's. */
  ratio: number;
}

/** One load (a signal and a request shape) at the three levels, on the service and on its baseline. */
export interface LevelsRow {
  signal: string;
  itemsPerRequest: number;
  averageRequestBytes: number;
  baselineName: string;
  faultline: LevelResult[];
  baseline: LevelResult[];
}

export function levelsRow(
  signal: string,
  itemsPerRequest: number,
  averageRequestBytes: number,
  faultline: LevelResult[],
  baseline: LevelResult[],
  baselineName: string,
): LevelsRow {
  return { signal, itemsPerRequest, averageRequestBytes, baselineName, faultline, baseline };
}

export function atLevel(levels: LevelResult[], level: LevelName): LevelResult | undefined {
  return levels.find((l) => l.level === level);
}

export function yardstickRow(signal: YardstickRow['signal'], cpuSeconds: number, items: number, baseline: string, baselineMicrosPerItem: number): YardstickRow {
  const microsPerItem = items > 0 ? (cpuSeconds * 1e6) / items : Number.NaN;
  return { signal, cpuSeconds, items, microsPerItem, baseline, baselineMicrosPerItem, ratio: microsPerItem / baselineMicrosPerItem };
}

export interface Goal {
  goal: string;
  value: string;
  pass: boolean | null;
  note?: string;
}

export function evaluateGoals(r: Results): Goal[] {
  const goals: Goal[] = [];
  const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a');
  const row = (signal: string) => r.levels?.find((l) => l.signal === signal);
  const single = row('events: POST /v1/events');
  if (single) {
    const sat = atLevel(single.faultline, '100 %');
    const satBare = atLevel(single.baseline, '100 %');
    const low = atLevel(single.faultline, '25 %');
    const lowBare = atLevel(single.baseline, '25 %');
    const at70 = atLevel(single.faultline, '70 %');
    if (sat && satBare) {
      const ratio = sat.cpuMicrosPerRequest / satBare.cpuMicrosPerRequest;
      goals.push({
        goal: 'events CPU <= 2 x bare server per request at saturation',
        value: `${fmt(ratio, 2)} x (${fmt(sat.cpuMicrosPerRequest, 1)} against ${fmt(satBare.cpuMicrosPerRequest, 1)} µs)`,
        pass: ratio <= 2,
      });
      goals.push({
        goal: 'events CPU <= ~100 µs per 5.5 KB event at saturation',
        value: `${fmt(sat.cpuMicrosPerItem, 1)} µs`,
        pass: sat.cpuMicrosPerItem <= 100,
      });
    }
    if (low && lowBare) {
      const ratio = low.cpuMicrosPerRequest / lowBare.cpuMicrosPerRequest;
      goals.push({
        goal: 'events CPU <= 3 x bare server per request at 25 % of capacity',
        value: `${fmt(ratio, 2)} x (${fmt(low.cpuMicrosPerRequest, 1)} against ${fmt(lowBare.cpuMicrosPerRequest, 1)} µs)`,
        pass: ratio <= 3,
      });
    }
    if (at70)
      goals.push({
        goal: 'events p99 <= 25 ms at 70 % of capacity',
        value: `${fmt(at70.latency.p99, 1)} ms at ${fmt(at70.requestsPerSecond)}/s offered`,
        pass: at70.latency.p99 <= 25 && at70.errors === 0,
        note: at70.errors ? `${at70.errors} requests not accepted` : undefined,
      });
  }
  const spans = row('spans: OTLP protobuf');
  if (spans) {
    const worst = spans.faultline.reduce((a, b) => (b.cpuMicrosPerItem > a.cpuMicrosPerItem ? b : a));
    goals.push({
      goal: 'spans CPU <= 10 µs per span over OTLP protobuf (every level)',
      value: spans.faultline.map((l) => `${fmt(l.cpuMicrosPerItem, 1)} µs at ${l.level}`).join(', '),
      pass: worst.cpuMicrosPerItem <= 10,
    });
  }
  const loads = (r.levels ?? []).filter((l) => l.faultline.some((x) => Number.isFinite(x.steadyAnonMB)));
  if (loads.length) {
    const worst = loads
      .flatMap((l) => l.faultline.map((x) => ({ signal: l.signal, level: x.level, mb: x.steadyAnonMB })))
      .filter((x) => Number.isFinite(x.mb))
      .reduce((a, b) => (b.mb > a.mb ? b : a));
    goals.push({
      goal: 'steady anonymous RSS <= 400 MB under each load',
      value: `max ${fmt(worst.mb)} MB (${worst.signal} at ${worst.level})`,
      pass: worst.mb <= 400,
    });
  }
  if (r.reads) {
    const worst = r.reads.cases.reduce((a, b) => (b.api.p99 > a.api.p99 ? b : a));
    goals.push({
      goal: 'reads p99 <= 20 ms at 10M events and spans',
      value: `worst ${fmt(worst.api.p99, 1)} ms (${worst.name})`,
      pass: worst.api.p99 <= 20,
      note: r.reads.events >= 10_000_000 ? undefined : `measured at ${fmt(r.reads.events)} events / ${fmt(r.reads.spans)} spans, not 10M`,
    });
  }
  if (r.storage) {
    const p = r.storage.parquet;
    if ('na' in p) goals.push({ goal: 'Parquet <= 1/8 of raw JSON bytes', value: p.na, pass: null });
    else
      goals.push({
        goal: 'Parquet <= 1/8 of raw JSON bytes',
        value: `1/${fmt(1 / p.ratioToRaw, 1)} (${fmt(p.bytesPerEvent)} B/event)`,
        pass: p.ratioToRaw <= 1 / 8,
      });
  }
  return goals;
}

// --- the table ---------------------------------------------------------------------------------

const n2 = (x: number) => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }) : 'n/a');
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : 'n/a');

export function formatReport(r: Results): string {
  const out: string[] = [];
  const m = r.machine;
  out.push(`Faultline benchmark (${r.mode}) — ${r.startedAt}, ${n0(r.wallSeconds)} s wall`);
  out.push(`Machine: ${m.cpu}, ${m.cores} cores, ${n1(m.memoryGiB)} GiB RAM, Node ${m.node}, ${m.os}`);
  out.push(`Source: commit ${r.source.commit}${r.source.changed.length ? ` + uncommitted changes to ${r.source.changed.join(', ')}` : ''}`);
  out.push('');

  if (r.events) {
    const e = r.events;
    out.push(
      `EVENTS  SDK-like: ${e.bodies.count} pregenerated events, avg ${n1(e.bodies.averageBytes / 1024)} KB as a /v1/events body (p5-p95 ${n1(e.bodies.p5Bytes / 1024)}-${n1(e.bodies.p95Bytes / 1024)} KB),`,
      `        an id each (fresh per request), 20-25 frames about half in-app, ~12 breadcrumbs, contexts, request, tags; ${e.bodies.distinctErrors} errors x ${e.bodies.releases} releases`,
      `        capacity (closed loop, one event per request): ${n0(e.capacity)} requests/s; bare server ${n0(e.bareCapacity)}/s`,
      '',
    );
  }

  if (r.levels?.length) {
    const st = r.settings as { connections: number; spanConnections: number; capacitySeconds: number; levelSeconds: number; warmupSeconds: number };
    out.push(
      "CPU PER ITEM AT 25 %, 70 % AND 100 % OF CAPACITY  the process's CPU (user + system, all threads, /proc/<pid>/stat) over the window / items accepted;",
      `        100 % = closed loop (${st.connections} connections for events, ${st.spanConnections} for spans, ${st.capacitySeconds} s after ${st.warmupSeconds} s warm-up), 25 % and 70 % of its rate offered open loop`,
      `        for ${st.levelSeconds} s (latency from each scheduled send); the baseline with the same bodies and driver, at its own capacity's levels; anon = steady RssAnon`,
    );
    const rows: string[][] = [];
    for (const l of r.levels) {
      for (const level of ['25 %', '70 %', '100 %'] as const) {
        const f = atLevel(l.faultline, level);
        const b = atLevel(l.baseline, level);
        if (!f) continue;
        rows.push([
          level === '25 %'
            ? `${l.signal} (${l.itemsPerRequest}/request, ${n1(l.averageRequestBytes / 1024)} KB)`
            : level === '70 %'
              ? `  baseline: ${l.baselineName}`
              : '',
          level,
          n0(f.requestsPerSecond),
          n1(f.cpuMicrosPerItem),
          b ? n1(b.cpuMicrosPerItem) : '',
          b ? n2(f.cpuMicrosPerItem / b.cpuMicrosPerItem) : '',
          n1(f.cpuMicrosPerRequest),
          b ? n1(b.cpuMicrosPerRequest) : '',
          n2(f.latency.p50),
          n2(f.latency.p99),
          String(f.errors),
          n0(f.steadyAnonMB),
        ]);
      }
    }
    out.push(
      table(['', 'level', 'requests/s', 'µs/item', 'base µs/item', 'ratio', 'µs/request', 'base µs/req', 'p50 ms', 'p99 ms', 'errors', 'anon MB'], rows),
    );
    out.push('');
  }

  if (r.yardstick?.length) {
    out.push("CPU PER ITEM (replays)  the service child's CPU (user + system, all threads, /proc/<pid>/stat) over the measured load / items accepted");
    out.push(
      table(
        ['', 'Faultline µs/item', 'items', 'baseline', 'baseline µs/item', 'ratio'],
        r.yardstick.map((y) => [y.signal, n1(y.microsPerItem), n0(y.items), y.baseline, n1(y.baselineMicrosPerItem), n2(y.ratio)]),
      ),
    );
    out.push('');
  }

  if (r.reads) {
    const rd = r.reads;
    out.push(
      `READS   ${n0(rd.events)} events + ${n0(rd.spans)} spans (${n0(rd.traces)} traces) loaded over HTTP${rd.reused ? ' by an earlier run (--data)' : ''} in ${n0(rd.loadSeconds)} s`,
      `        (events ${n0(rd.eventsPerSecondLoaded)}/s as envelopes of 100, spans ${n0(rd.spansPerSecondLoaded)}/s as OTLP requests of 1,000), DuckDB file ${n2(rd.databaseBytes / 2 ** 30)} GiB;`,
      `        sequential requests to the service child; SQL = the same SELECT on its DuckDB file opened read-only after it stopped`,
    );
    out.push(
      table(
        ['', 'API p50', 'API p99', 'SQL p50', 'SQL p99', 'API/SQL p50', 'n', 'bytes'],
        rd.cases.map((c) => [c.name, n2(c.api.p50), n2(c.api.p99), n2(c.sql.p50), n2(c.sql.p99), n2(c.ratioP50), String(c.api.n), n0(c.responseBytes)]),
      ),
    );
    for (const c of rd.cases) out.push(`    ${c.name}: ${c.request}`);
    out.push(`  RSS of the service child after the load: ${n0(rd.rssMB)} MB`);
    out.push('');
  }

  if (r.symbolication) out.push(...formatFeaturePhase(r.symbolication));

  if (r.issues) out.push(...formatFeaturePhase(r.issues));

  if (r.replays) {
    const p = r.replays;
    out.push(
      `REPLAYS  ${n1(p.chunkBytes / 1e6)} MB rrweb chunks to the service (child process); CPU ms/chunk: the service's and the sender's together, service: the child's alone; stored ${p.storedPerRawByte.toFixed(3)} bytes per raw byte (gzip)`,
    );
    out.push(
      table(
        ['', 'chunks/s', 'raw MB/s', 'CPU ms/chunk', 'service CPU ms/chunk'],
        p.cases.map((c) => [
          c.label,
          n1(c.chunksPerSecond),
          n1(c.rawMBPerSecond),
          n1(c.cpuMillisPerChunk),
          Number.isFinite(c.serviceCpuMillisPerChunk) ? n1(c.serviceCpuMillisPerChunk) : '',
        ]),
      ),
    );
    out.push('');
  }

  if (r.grouping) out.push(...formatFeaturePhase(r.grouping));

  if (r.scrubbing) out.push(...formatFeaturePhase(r.scrubbing));

  if (r.alerting) out.push(...formatFeaturePhase(r.alerting));

  if (r.monitors) out.push(...formatFeaturePhase(r.monitors));

  if (r.kafka) {
    const k = r.kafka;
    if ('na' in k) out.push(`BEYOND ONE MACHINE  ${k.na}`, '');
    else {
      out.push(
        `BEYOND ONE MACHINE  ingest -> Kafka (librdkafka mock) -> worker -> lake -> query, each node a child process, against the single-process path (one child); ${n0(k.events)} events, ${n0(k.spans)} spans, lake flush every ${k.flushIntervalMs} ms`,
      );
      const row = (label: string, p: typeof k.single) => [
        label,
        n0(p.eventsPerSecond),
        n0(p.spansPerSecond),
        n0(p.ackToReadable.p50Ms),
        n0(p.ackToReadable.p99Ms),
      ];
      out.push(
        table(
          ['', 'events/s (sent to readable)', 'spans/s', 'ack→readable p50 ms', 'p99 ms'],
          [
            row('single process', k.single),
            row('through Kafka', k.kafka),
            ...(k.kafkaS3 ? [row('through Kafka, lake on S3', k.kafkaS3)] : []),
            [
              'ratio Kafka / single',
              `${n1((k.kafka.eventsPerSecond / k.single.eventsPerSecond) * 100)} %`,
              `${n1((k.kafka.spansPerSecond / k.single.spansPerSecond) * 100)} %`,
              '',
              '',
            ],
          ],
        ),
      );
      out.push('');
    }
  }

  if (r.storage || r.memory) {
    out.push('MEMORY AND STORAGE');
    if (r.memory)
      out.push(
        `  service RSS: steady ${n0(r.memory.steadyMB)} MB (of which anonymous ${n0(r.memory.steadyAnonMB)} MB; the rest is mapped files, mostly the DocStore's LMDB map, which the kernel can drop), peak ${n0(r.memory.peakMB)} MB (${r.memory.note})`,
      );
    if (r.storage) {
      const st = r.storage;
      out.push(`  raw JSON: ${n0(st.rawJsonBytesPerEvent)} bytes/event (the request bodies)`);
      if ('na' in st.duckdb) out.push(`  DuckDB: ${st.duckdb.na}`);
      else
        out.push(
          `  DuckDB: ${n0(st.duckdb.bytesPerEvent)} bytes/event (${n0(st.duckdb.bytes / 2 ** 20)} MiB file growth for ${n0(st.duckdb.events)} events, after the shutdown checkpoint) = ${n2(st.duckdb.ratioToRaw)} x raw;`,
          `          of which blocks in use ${n0(st.duckdb.usedBytesPerEvent)} bytes/event (the rest are free blocks left by many small commits)`,
          `  DocStore (event documents, LMDB): ${n0(st.duckdb.docStoreBytesPerEvent)} bytes/event; with DuckDB ${n2(st.duckdb.totalRatioToRaw)} x raw`,
        );
      if ('na' in st.parquet) out.push(`  Parquet: ${st.parquet.na}`);
      else
        out.push(
          `  Parquet: ${n0(st.parquet.bytesPerEvent)} bytes/event (${n0(st.parquet.bytes / 2 ** 20)} MiB in ${st.parquet.files} files for ${n0(st.parquet.events)} events) = 1/${n1(1 / st.parquet.ratioToRaw)} of raw; parquet-only pipeline ${n0(st.parquet.eventsPerSecond)} events/s`,
        );
    }
    out.push('');
  }

  if (r.overload) {
    const o = r.overload;
    const errs = Object.entries(o.otherStatuses)
      .map(([s, c]) => `${c}x${s}`)
      .join(', ');
    out.push(
      `OVERLOAD  events offered open-loop at ${n0(o.offeredRate)}/s (3 x measured capacity) for ${n1(o.seconds)} s, pipelined over ${(r.settings as { overloadConnections: number }).overloadConnections} connections`,
    );
    out.push(
      table(
        ['sent', 'answered', '202', 'refused 503/429', 'refused share', 'other 5xx', 'lost', 'client-shed', 'peak RSS MB', 'recovery s', 'drain s'],
        [
          [
            n0(o.sent),
            n0(o.answered),
            n0(o.accepted),
            n0(o.refused),
            pct(o.refusedShare),
            n0(o.otherServerErrors),
            n0(o.lost),
            n0(o.clientShed),
            n0(o.peakRssMB),
            Number.isFinite(o.recoverySeconds) ? n2(o.recoverySeconds) : 'never',
            n1(o.drainSeconds),
          ],
        ],
      ),
    );
    out.push(
      `  accepted latency (from the scheduled send) p50 ${n0(o.acceptedLatency.p50)} ms, p99 ${n0(o.acceptedLatency.p99)} ms${o.refused ? `; refusals answered in p50 ${n1(o.refusedLatency.p50)} ms` : ''}${errs ? `; other statuses: ${errs}` : ''}`,
    );
    out.push('');
  }

  out.push('GOALS');
  const width = Math.max(...r.goals.map((g) => g.goal.length));
  for (const g of r.goals)
    out.push(`  [${g.pass === null ? ' n/a' : g.pass ? 'PASS' : 'FAIL'}] ${g.goal.padEnd(width)}  ${g.value}${g.note ? `  (${g.note})` : ''}`);
  return out.join('\n');
}
