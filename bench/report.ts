// The machine, the goals, and the printed table. The same figures go to bench/results/latest.json.
import { readFileSync } from 'node:fs';
import { cpus, totalmem, platform, arch, release } from 'node:os';
import type { DriveResult } from './driver.js';
import type { OverloadResult } from './overload.js';
import type { ProfileSummary } from './profile.js';
import type { ReadTiming } from './reads.js';
import type { DecodeResult, SpansResult } from './spans.js';
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
    faultline: DriveResult;
    bare: DriveResult;
    /** Faultline events/s over the bare server's. */
    ratio: number;
    memory: PhaseMemory;
    /** Offered open loop at 70 % of the measured events/s (latency from each scheduled send). */
    at70?: {
      offeredRate: number;
      accepted: number;
      refused: number;
      otherServerErrors: number;
      latency: { p50: number; p99: number; max: number; n: number };
      /** The service's CPU over the phase (incl. the answers still arriving after it) per accepted event. */
      cpuMicrosPerEvent: number;
    };
  };
  overload?: OverloadResult;
  spans?: {
    requestBytes: number;
    spansPerRequest: number;
    faultline: SpansResult;
    decode: DecodeResult;
    /** Faultline spans/s over the raw decode rate. */
    ratio: number;
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
    issues: number;
    loadSeconds: number;
    databaseBytes: number;
    cases: ReadTiming[];
    /** The large mode: only the newest this many rows have documents (bench/large.ts). */
    documents?: number;
    /** RSS of this process (bench + in-process service) after the reads. */
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
  if (r.events) {
    const e = r.events;
    goals.push({ goal: 'events >= 10,000/s', value: `${fmt(e.faultline.okPerSecond)}/s`, pass: e.faultline.okPerSecond >= 10_000 });
    if (e.at70)
      goals.push({
        goal: 'events p99 <= 25 ms at 70 % of capacity',
        value: `${fmt(e.at70.latency.p99, 1)} ms at ${fmt(e.at70.offeredRate)}/s`,
        pass: e.at70.latency.p99 <= 25 && e.at70.refused === 0 && e.at70.otherServerErrors === 0,
      });
    goals.push({ goal: 'events >= 0.35 x bare node:http', value: `${fmt(e.ratio, 3)} x`, pass: e.ratio >= 0.35 });
  }
  const ys = (signal: YardstickRow['signal']) => r.yardstick?.find((y) => y.signal === signal);
  const ye = ys('events');
  if (ye) {
    goals.push({ goal: 'events CPU <= 100 µs/event', value: `${fmt(ye.microsPerItem, 1)} µs`, pass: ye.microsPerItem <= 100 });
    goals.push({ goal: 'events CPU <= 2 x bare node:http', value: `${fmt(ye.ratio, 2)} x`, pass: ye.ratio <= 2 });
  }
  const ysp = ys('spans');
  if (ysp) {
    goals.push({ goal: 'spans CPU <= 10 µs/span', value: `${fmt(ysp.microsPerItem, 1)} µs`, pass: ysp.microsPerItem <= 10 });
  }
  if (r.spans) {
    const s = r.spans;
    goals.push({ goal: 'spans >= 100,000/s', value: `${fmt(s.faultline.spansPerSecond)}/s`, pass: s.faultline.spansPerSecond >= 100_000 });
    goals.push({ goal: 'spans >= 0.5 x raw decode', value: `${fmt(s.ratio, 3)} x`, pass: s.ratio >= 0.5 });
  }
  if (r.reads) {
    const worst = r.reads.cases.reduce((a, b) => (b.api.p99 > a.api.p99 ? b : a));
    goals.push({
      goal: 'reads p99 <= 20 ms at 10M rows',
      value: `worst ${fmt(worst.api.p99, 1)} ms (${worst.name})`,
      pass: worst.api.p99 <= 20,
      note: r.reads.events >= 10_000_000 ? undefined : `measured at ${fmt(r.reads.events)} events / ${fmt(r.reads.spans)} spans, not 10M`,
    });
  }
  if (r.memory) goals.push({ goal: 'steady RSS <= 400 MB', value: `${fmt(r.memory.steadyMB)} MB`, pass: r.memory.steadyMB <= 400 });
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
const n3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : 'n/a');

function errorsOf(d: DriveResult): string {
  const parts = Object.entries(d.statuses).map(([s, c]) => `${c}x${s}`);
  if (d.socketErrors) parts.push(`${d.socketErrors} socket`);
  return parts.length ? `${d.non2xx + d.socketErrors} (${parts.join(', ')})` : '0';
}

export function formatReport(r: Results): string {
  const out: string[] = [];
  const m = r.machine;
  out.push(`Faultline benchmark (${r.mode}) — ${r.startedAt}, ${n0(r.wallSeconds)} s wall`);
  out.push(`Machine: ${m.cpu}, ${m.cores} cores, ${n1(m.memoryGiB)} GiB RAM, Node ${m.node}, ${m.os}`);
  out.push(`Source: commit ${r.source.commit}${r.source.changed.length ? ` + uncommitted changes to ${r.source.changed.join(', ')}` : ''}`);
  out.push('');

  if (r.events) {
    const e = r.events;
    const s = r.settings as { connections: number; eventsSeconds: number; warmupSeconds: number };
    out.push(
      `EVENTS  POST /v1/events, one event per request, ${s.connections} connections, ${s.eventsSeconds} s measured after ${s.warmupSeconds} s warm-up;`,
      `        ${e.bodies.count} pregenerated bodies, avg ${n1(e.bodies.averageBytes / 1024)} KB (p5-p95 ${n1(e.bodies.p5Bytes / 1024)}-${n1(e.bodies.p95Bytes / 1024)} KB), ${e.bodies.distinctErrors} errors x ${e.bodies.releases} releases, no ids`,
    );
    out.push(
      table(
        ['', 'events/s', 'p50 ms', 'p99 ms', 'errors'],
        [
          ['Faultline (child process)', n0(e.faultline.okPerSecond), n2(e.faultline.latency.p50), n2(e.faultline.latency.p99), errorsOf(e.faultline)],
          ['bare node:http + JSON.parse (child process)', n0(e.bare.okPerSecond), n2(e.bare.latency.p50), n2(e.bare.latency.p99), errorsOf(e.bare)],
          ['ratio Faultline / bare', n3(e.ratio), '', '', ''],
        ],
      ),
    );
    out.push(`  service: steady RSS ${n0(e.memory.steadyMB)} MB, peak ${n0(e.memory.peakMB)} MB, CPU ${n2(e.memory.cpuCores)} cores`);
    if (e.at70)
      out.push(
        `  at 70 % of capacity (${n0(e.at70.offeredRate)}/s offered open loop over the same connections, latency from each scheduled send):`,
        `    p50 ${n2(e.at70.latency.p50)} ms, p99 ${n2(e.at70.latency.p99)} ms, max ${n2(e.at70.latency.max)} ms; ${n0(e.at70.accepted)} accepted, ${n0(e.at70.refused)} refused, ${n0(e.at70.otherServerErrors)} other 5xx; CPU ${n1(e.at70.cpuMicrosPerEvent)} µs/event`,
      );
    out.push('');
  }

  if (r.spans) {
    const s = r.spans;
    const st = r.settings as { spanConnections: number; spansSeconds: number; warmupSeconds: number };
    out.push(
      `SPANS   OTLP/HTTP protobuf POST /v1/traces, ${s.spansPerRequest} spans x ~10 attributes per request (avg ${n0(s.requestBytes / 1024)} KB, real SDK + ProtobufTraceSerializer,`,
      `        fresh trace/span ids per request), ${st.spanConnections} connections, ${st.spansSeconds} s measured after ${st.warmupSeconds} s warm-up`,
    );
    out.push(
      table(
        ['', 'spans/s', 'requests/s', 'p50 ms', 'p99 ms', 'errors'],
        [
          [
            'Faultline OTLP receiver (child process)',
            n0(s.faultline.spansPerSecond),
            n1(s.faultline.okPerSecond),
            n2(s.faultline.latency.p50),
            n2(s.faultline.latency.p99),
            errorsOf(s.faultline),
          ],
          [
            'decodeTraceRequestProtobuf alone (1 thread)',
            n0(s.decode.spansPerSecond),
            n1(s.decode.requests / s.decode.seconds),
            n2(s.decode.msPerRequest),
            '',
            '',
          ],
          ['ratio Faultline / decode', n3(s.ratio), '', '', '', ''],
        ],
      ),
    );
    out.push(`  service: steady RSS ${n0(s.memory.steadyMB)} MB, peak ${n0(s.memory.peakMB)} MB, CPU ${n2(s.memory.cpuCores)} cores`);
    out.push('');
  }

  if (r.yardstick?.length) {
    out.push(
      "CPU PER ITEM  the service child's CPU (user + system, all threads, /proc/<pid>/stat) over the measured load / items accepted; baselines in the same run",
    );
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
      `READS   ${n0(rd.events)} events + ${n0(rd.spans)} spans (${n0(rd.traces)} traces, ${rd.issues} issues) bulk-loaded in ${n0(rd.loadSeconds)} s, DuckDB file ${n1(rd.databaseBytes / 2 ** 30)} GiB;`,
      `        sequential requests; API = HTTP through the service in this process, SQL = the same SELECT on its DuckDB reader connection`,
    );
    out.push(
      table(
        ['', 'API p50', 'API p99', 'SQL p50', 'SQL p99', 'API/SQL p50', 'n', 'bytes'],
        rd.cases.map((c) => [c.name, n2(c.api.p50), n2(c.api.p99), n2(c.sql.p50), n2(c.sql.p99), n2(c.ratioP50), String(c.api.n), n0(c.responseBytes)]),
      ),
    );
    for (const c of rd.cases) out.push(`    ${c.name}: ${c.request}`);
    if (rd.documents) out.push(`  documents in the DocStore for the newest ${n0(rd.documents)} events and spans only (bench/large.ts)`);
    out.push(`  RSS of the bench process holding the in-process service after the reads: ${n0(rd.rssMB)} MB`);
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
