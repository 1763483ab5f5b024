// `npm run bench [-- --quick] [--events N] [--spans N] [--only events,spans,reads,symbolication,issues,grouping,scrubbing,alerting,monitors,replays,kafka] [--profile]`
// Starts the real service as a child process and measures it from outside (HTTP, CLI, config):
// events, spans, replays, reads, memory, storage, overload and each hot-path feature with and
// without it, beside baselines measured in the same run; prints a table and writes bench/results/latest.json.
// Progress goes to stderr, the table to stdout.
import { mkdirSync, readdirSync, rmSync, writeFileSync, type Dirent } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { stringify as toYaml } from 'yaml';
import { startBaseline } from './baseline-server.js';
import { postMany } from './bulk-http.js';
import { measureEventsVariant, type EventsVariant } from './events.js';
import { drive } from './driver.js';
import { directoryBytes, docStoreBytes, duckdbBytes, readRss, RssSampler } from './memory.js';
import { measureOverload } from './overload.js';
import { sdkEventSets, SpanPayloads, type IdBodies } from './payloads.js';
import { packageRoot } from './paths.js';
import { formatProfile, newestProfile, summarizeProfile } from './profile.js';
import { measureReads } from './reads.js';
import { largeSizes, loadOnce } from './large.js';
import { evaluateGoals, formatReport, levelsRow, machineInfo, yardstickRow, type Results } from './report.js';
import { runCli, startChild, tempDir, webSession, type ChildService } from './service.js';
import { measureBareSpans, measureFaultlineSpans } from './spans.js';
import { measureSymbolication } from './symbolication.js';
import { measureGrouping } from './grouping.js';
import { measureIssues } from './issues.js';
import { measureAlerting } from './alerting.js';
import { measureMonitors } from './monitors.js';
import { measureReplays } from './replays.js';
import { measureKafka } from './kafka.js';
import { measureScrubbing } from './scrubbing.js';
import { sleep } from './stats.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    events: { type: 'string' },
    spans: { type: 'string' },
    data: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'kafka-s3': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (args.help) {
  process.stdout.write(`npm run bench [-- options]
  --quick              every phase, short
  --only P1,P2         phases: events, spans, reads, symbolication, issues, grouping, scrubbing, alerting, monitors, replays, kafka, large
  --profile            also CPU-profile the service and print where its main thread went
  --events N --spans N rows for the reads phase (and --only large), loaded over HTTP
  --data DIR           reads/large: load into DIR once, reuse it on later runs with the same sizes
  --keep               keep the data directories
  --kafka-s3           the kafka phase also runs the Kafka path with the lake on S3 (s3rver on loopback)
How each figure is taken: bench/README.md
`);
  process.exit(0);
}

const quick = args.quick;
// Loaded through the ingest routes (load.ts): the full run's N is what loads in about two minutes.
const N_EVENTS = Number(args.events ?? (quick ? 10_000 : 200_000));
const N_SPANS = Number(args.spans ?? (quick ? 20_000 : 1_000_000));
const phases = new Set(
  (args.only ?? 'events,spans,reads,symbolication,issues,grouping,scrubbing,alerting,monitors,replays,kafka').split(',').map((s) => s.trim()),
);
const settings = {
  quick,
  /** Events: keep-alive connections, as the SDK-like load of issue #30. */
  connections: 32,
  spanConnections: 16,
  overloadConnections: 256,
  overloadMaxInFlight: 20_000,
  warmupSeconds: quick ? 1 : 3,
  /** Each load: the closed loop (capacity, the 100 % level), then 70 % and 25 % of it open loop. */
  capacitySeconds: quick ? 1.5 : 10,
  levelSeconds: quick ? 1.5 : 10,
  overloadSeconds: quick ? 3 : 10,
  recoveryTimeoutSeconds: quick ? 10 : 60,
  parquetSeconds: quick ? 2 : 8,
  eventBodies: 4000,
  readRequests: 200,
  readMaxSecondsPerSide: quick ? 1 : 12,
  readWalkSeconds: quick ? 3 : 45,
  deepPages: 50,
  readsEvents: N_EVENTS,
  readsSpans: N_SPANS,
  symbolicationSeconds: quick ? 2 : 10,
  profile: args.profile,
};

const started = Date.now();
const log = (line: string): void => void process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
const results: Results = {
  benchmark: 'faultline',
  mode: quick ? 'quick' : 'full',
  startedAt: new Date(started).toISOString(),
  wallSeconds: 0,
  machine: machineInfo(),
  source: sourceState(),
  settings,
  goals: [],
};

/** The commit measured, and the files changed on top of it (outside bench/) when the run started. */
function sourceState(): { commit: string; changed: string[] } {
  const git = (...a: string[]) => {
    try {
      return execFileSync('git', a, { cwd: packageRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).replace(/\n+$/, '');
    } catch {
      return '';
    }
  };
  const changed = git('status', '--porcelain')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(3))
    .filter((f) => !f.startsWith('bench/'));
  return { commit: git('rev-parse', '--short', 'HEAD') || 'unknown', changed };
}
const cleanup: Array<() => Promise<unknown> | unknown> = [];
const profDir = args.profile ? tempDir('faultline-bench-prof-') : undefined;
const nodeArgs = profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
results.profiles = args.profile ? {} : undefined;

function removeLater(dir: string): string {
  if (!args.keep) cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function stopChild(svc: ChildService): Promise<void> {
  const code = await svc.stop();
  if (code !== 0) log(`  warning: the service exited with ${code}\n${svc.stderr().slice(-2000)}`);
}

function takeProfile(name: string): void {
  if (!profDir || !results.profiles) return;
  const file = newestProfile(profDir);
  if (!file) {
    log(`  no CPU profile written for ${name}`);
    return;
  }
  const summary = summarizeProfile(file);
  results.profiles[name] = summary;
  if (!args.keep) rmSync(file);
}

/** Events in a stopped service's DuckDB file, and the bytes of the blocks in use (the file also holds free blocks): read-only. */
async function eventStats(dataDir: string): Promise<{ events: number; usedBytes: number }> {
  const instance = await DuckDBInstance.create(join(dataDir, 'faultline.duckdb'), { access_mode: 'READ_ONLY' });
  const c = await instance.connect();
  try {
    const events = Number((await c.runAndReadAll('SELECT count(*) FROM events')).getRows()[0][0]);
    const size = (await c.runAndReadAll('SELECT used_blocks, block_size FROM pragma_database_size()')).getRows()[0];
    return { events, usedBytes: Number(size[0]) * Number(size[1]) };
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

/** A data directory the service started on and stopped with nothing sent: what the events grow it from. */
async function emptyDataDir(): Promise<string> {
  const dir = removeLater(tempDir('faultline-bench-empty-'));
  await stopChild(await startChild({ dataDir: dir }));
  return dir;
}

/** The service's environment for the reads: retention long enough to keep the loaded 30 days. */
const READS_ENV = { FAULTLINE_RETENTION_EVENTS_DAYS: '365', FAULTLINE_RETENTION_TRACES_DAYS: '365' };

async function main(): Promise<void> {
  const m = results.machine;
  log(`Faultline benchmark (${results.mode}) on ${m.cpu}, ${m.cores} cores, Node ${m.node}`);
  log('Generating payloads…');
  const events = sdkEventSets(phases.has('events') ? settings.eventBodies : 1);
  const spanPayloads = new SpanPayloads(512, phases.has('spans') ? 4 : 1);
  spanPayloads.selfCheck();
  const levelSettings = {
    warmupSeconds: settings.warmupSeconds,
    capacitySeconds: settings.capacitySeconds,
    levelSeconds: settings.levelSeconds,
    maxInFlight: settings.overloadMaxInFlight,
    log,
  };
  let steady = 0;
  let steadyAnon = 0;
  let peak = 0;

  if (phases.has('events')) {
    const bare = await startBaseline();
    cleanup.push(() => bare.stop());
    const bareSampler = new RssSampler(bare.pid).start();
    const dataDir = removeLater(tempDir('faultline-bench-events-'));
    const svc = await startChild({ dataDir, nodeArgs });
    cleanup.push(() => svc.child.kill('SIGKILL'));
    // The steady state has its issues: each of the 200 errors x 3 releases once before any window
    // (opening an issue is a catalog write, which a short warm-up would otherwise count).
    log(`Events: priming the service with each error once (${events.distinctErrors * 3} events)…`);
    await postMany({
      baseUrl: svc.baseUrl,
      path: '/v1/events',
      headers: { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/json' },
      requests: events.distinctErrors * 3,
      concurrency: 8,
      next: () => events.single.nextBody(),
    });
    const sampler = new RssSampler(svc.pid).start();
    const variants: Array<[EventsVariant, IdBodies]> = [
      ['POST /v1/events', events.single],
      ['envelope, 1 event', events.envelope1],
      ['envelope, 10 events', events.envelope10],
    ];
    for (const [variant, bodies] of variants) {
      log(`Events, ${variant}: ${settings.connections} connections, capacity then 70 % and 25 % of it…`);
      const measured = await measureEventsVariant(variant, bodies, svc, bare, {
        ...levelSettings,
        connections: settings.connections,
        sampler,
        bareSampler,
      });
      (results.levels ??= []).push(
        levelsRow(
          `events: ${variant}`,
          measured.itemsPerRequest,
          measured.averageBytes,
          measured.faultline,
          measured.bare,
          variant === 'POST /v1/events' ? 'bare node:http + JSON.parse' : 'bare node:http + envelope split + JSON.parse',
        ),
      );
    }
    bareSampler.stop();
    await bare.stop();
    cleanup.pop();
    const eventRows = (results.levels ?? []).filter((r) => r.signal.startsWith('events'));
    const capacity = eventRows[0].faultline.find((l) => l.level === '100 %');
    const sizes = events.single.sizes();
    const memory = {
      steadyMB: Math.max(...eventRows.flatMap((r) => r.faultline.map((l) => l.steadyRssMB))),
      steadyAnonMB: Math.max(...eventRows.flatMap((r) => r.faultline.map((l) => l.steadyAnonMB))),
      peakMB: sampler.peak(),
      cpuCores: Number.NaN,
    };
    results.events = {
      bodies: {
        count: events.single.count,
        averageBytes: events.single.averageBytes,
        p5Bytes: sizes[Math.floor(sizes.length * 0.05)],
        p95Bytes: sizes[Math.floor(sizes.length * 0.95)],
        distinctErrors: events.distinctErrors,
        releases: 3,
      },
      capacity: capacity?.requestsPerSecond ?? Number.NaN,
      bareCapacity: eventRows[0].baseline.find((l) => l.level === '100 %')?.requestsPerSecond ?? Number.NaN,
      memory,
    };
    [steady, steadyAnon] = [Math.max(steady, memory.steadyMB), Math.max(steadyAnon, memory.steadyAnonMB)];
    peak = Math.max(peak, memory.peakMB);

    const rate = Math.max(50, Math.round(3 * results.events.capacity));
    log(`Overload: ${rate}/s for ${settings.overloadSeconds} s…`);
    results.overload = await measureOverload({
      baseUrl: svc.baseUrl,
      key: svc.liveKey,
      nextBody: () => events.single.nextBody(),
      rate,
      duration: settings.overloadSeconds,
      connections: settings.overloadConnections,
      maxInFlight: settings.overloadMaxInFlight,
      normalP99: capacity?.latency.p99 ?? 1000,
      recoveryTimeout: settings.recoveryTimeoutSeconds,
      sampler,
    });
    const o = results.overload;
    log(
      `  sent ${o.sent}, 202 ${o.accepted}, refused ${o.refused}, other 5xx ${o.otherServerErrors}, lost ${o.lost}, recovery ${o.recoverySeconds.toFixed(2)} s`,
    );
    peak = Math.max(peak, readRss(svc.pid).hwmMB);
    sampler.stop();
    await stopChild(svc);
    cleanup.pop();
    takeProfile('events');

    // Storage: DuckDB file growth after the shutdown checkpoint over a data directory the service
    // started and stopped on with nothing sent, over the events it holds (read-only).
    const emptyDir = await emptyDataDir();
    const bytes = duckdbBytes(dataDir) - duckdbBytes(emptyDir);
    const emptyUsed = (await eventStats(emptyDir)).usedBytes;
    const stats = await eventStats(dataDir);
    const stored = stats.events;
    const docs = docStoreBytes(dataDir) - docStoreBytes(emptyDir);
    const raw = events.single.averageBytes;
    results.storage = {
      rawJsonBytesPerEvent: raw,
      duckdb: {
        events: stored,
        bytes,
        bytesPerEvent: bytes / stored,
        ratioToRaw: bytes / stored / raw,
        usedBytesPerEvent: (stats.usedBytes - emptyUsed) / stored,
        docStoreBytesPerEvent: docs / stored,
        totalRatioToRaw: (bytes + docs) / stored / raw,
      },
      parquet: { na: 'n/a (no parquet exporter yet)' },
    };

    if (/^exporter\s+parquet\b/m.test(await runCli(['components'], emptyDir))) {
      log(`Storage: Parquet exporter (${settings.parquetSeconds} s of events)…`);
      try {
        results.storage.parquet = await measureParquet(events.single, raw);
      } catch (error) {
        results.storage.parquet = { na: `n/a (parquet run failed: ${(error as Error).message.split('\n')[0]})` };
      }
    }
  }

  if (phases.has('spans')) {
    log(`Spans: OTLP protobuf, ${spanPayloads.spansPerRequest} spans per request, ${settings.spanConnections} connections, capacity then 70 % and 25 % of it…`);
    const bare = await startBaseline();
    cleanup.push(() => bare.stop());
    const dataDir = removeLater(tempDir('faultline-bench-spans-'));
    const svc = await startChild({ dataDir, nodeArgs });
    cleanup.push(() => svc.child.kill('SIGKILL'));
    const sampler = new RssSampler(svc.pid).start();
    const options = { ...levelSettings, payloads: spanPayloads, connections: settings.spanConnections };
    log('  Faultline');
    const fl = await measureFaultlineSpans(svc, { ...options, sampler });
    log('  bare node:http + protobufjs decode');
    const bareLevels = await measureBareSpans(bare, options);
    (results.levels ??= []).push(
      levelsRow('spans: OTLP protobuf', spanPayloads.spansPerRequest, spanPayloads.averageBytes, fl, bareLevels, 'bare node:http + protobufjs decode'),
    );
    const memory = {
      steadyMB: Math.max(...fl.map((l) => l.steadyRssMB)),
      steadyAnonMB: Math.max(...fl.map((l) => l.steadyAnonMB)),
      peakMB: Math.max(sampler.peak(), readRss(svc.pid).hwmMB),
      cpuCores: Number.NaN,
    };
    sampler.stop();
    await bare.stop();
    await stopChild(svc);
    cleanup.splice(-2);
    takeProfile('spans');
    results.spans = { requestBytes: spanPayloads.averageBytes, spansPerRequest: spanPayloads.spansPerRequest, memory };
    [steady, steadyAnon] = [Math.max(steady, memory.steadyMB), Math.max(steadyAnon, memory.steadyAnonMB)];
    peak = Math.max(peak, memory.peakMB);
  }

  if (steady > 0)
    results.memory = {
      steadyMB: steady,
      steadyAnonMB: steadyAnon,
      peakMB: peak,
      note: 'child process; steady = median over the 2nd half of each level of the events and spans loads (the largest), peak = VmHWM incl. overload',
    };

  if (phases.has('reads') || phases.has('large')) {
    // `large`: the reads at 10M rows (large.ts).
    const large = phases.has('large') ? largeSizes(args) : undefined;
    const [nEvents, nSpans] = large ? [large.events, large.spans] : [N_EVENTS, N_SPANS];
    log(
      `Reads: loading ${nEvents.toLocaleString('en-US')} events and ${nSpans.toLocaleString('en-US')} spans over HTTP (envelopes of 100, OTLP requests of 1,000)…`,
    );
    // --data DIR: load there once and reuse the rows in later runs (large.ts).
    const dataDir = args.data ?? removeLater(tempDir('faultline-bench-reads-'));
    const { svc, loaded } = await loadOnce(dataDir, nEvents, nSpans, log, (liveKey) => startChild({ dataDir, nodeArgs, liveKey, env: READS_ENV }));
    cleanup.push(() => svc.child.kill('SIGKILL'));
    await sleep(3000); // the DuckDB index follows the acknowledgments by a linger
    const rssMB = readRss(svc.pid).rssMB;
    const webCookie = await webSession(svc.baseUrl, dataDir);
    log(
      `  loaded in ${loaded.seconds.toFixed(1)} s${loaded.reused ? ' (an earlier run)' : ''}; reading over HTTP, then the same SQL on the stopped service's file…`,
    );
    const cases = await measureReads({
      baseUrl: svc.baseUrl,
      liveKey: svc.liveKey,
      dataDir,
      stopService: () => stopChild(svc),
      eventIds: loaded.eventIds,
      traceIds: loaded.traceIds,
      webCookie,
      requests: settings.readRequests,
      deepPages: settings.deepPages,
      maxSeconds: settings.readMaxSecondsPerSide,
      walkSeconds: settings.readWalkSeconds,
      filter: { environment: 'production', release: 'shop-web@2.15.0', query: 'undefined' },
      log,
    });
    cleanup.pop();
    results.reads = {
      events: loaded.events,
      spans: loaded.spans,
      traces: loaded.traces,
      loadSeconds: loaded.seconds,
      eventsPerSecondLoaded: loaded.events / loaded.eventSeconds,
      spansPerSecondLoaded: loaded.spans / loaded.spanSeconds,
      reused: loaded.reused,
      databaseBytes: duckdbBytes(dataDir),
      cases,
      rssMB,
    };
  }

  if (phases.has('symbolication')) {
    log(`Symbolication: the service (child process) with and without the processor, ${settings.symbolicationSeconds} s per case…`);
    results.symbolication = await measureSymbolication({ seconds: settings.symbolicationSeconds, log });
  }

  if (phases.has('issues')) {
    log(`Issues: the service (child process), known, new and merged issues, ${settings.symbolicationSeconds} s per case…`);
    results.issues = await measureIssues({ seconds: settings.symbolicationSeconds });
  }

  if (phases.has('replays')) {
    log(`Replays: 1 MB chunks through the service (child process), ${settings.symbolicationSeconds} s per case…`);
    results.replays = await measureReplays({
      seconds: settings.symbolicationSeconds,
      levelSeconds: { warmup: settings.warmupSeconds, capacity: settings.capacitySeconds, level: settings.levelSeconds },
      log,
    });
    const [baseline, json, raw] = results.replays.cases;
    const row = (signal: 'replay chunks (JSON events)' | 'replay chunks (raw gzip)', c: typeof json) =>
      yardstickRow(
        signal,
        (c.serviceCpuMillisPerChunk * c.chunks) / 1000,
        c.chunks,
        'JSON.parse + gzip in process, per chunk',
        baseline.cpuMillisPerChunk * 1000,
      );
    (results.yardstick ??= []).push(row('replay chunks (JSON events)', json), row('replay chunks (raw gzip)', raw));
    // The in-process baseline has one figure: the same at every level.
    const base = baseline.cpuMillisPerChunk * 1000;
    const baseLevels = results.replays.levels.map((l) => ({
      ...l,
      cpuMicrosPerItem: base,
      cpuMicrosPerRequest: base,
      latency: { p50: NaN, p99: NaN, max: NaN, n: 0 },
      steadyAnonMB: NaN,
      steadyRssMB: NaN,
    }));
    (results.levels ??= []).push(
      levelsRow(
        'replay chunks: JSON events',
        1,
        json.chunks ? results.replays.chunkBytes : NaN,
        results.replays.levels,
        baseLevels,
        'JSON.parse + gzip in process',
      ),
    );
  }

  if (phases.has('grouping')) {
    log(`Grouping: the service (child process) with and without grouping rules, ordinary and hostile events, ${settings.symbolicationSeconds} s per case…`);
    results.grouping = await measureGrouping({ seconds: settings.symbolicationSeconds });
  }

  if (phases.has('scrubbing')) {
    log(`Scrubbing: the service (child process) with and without it, ${settings.symbolicationSeconds} s per case…`);
    results.scrubbing = await measureScrubbing({ seconds: settings.symbolicationSeconds });
  }

  if (phases.has('alerting')) {
    log(`Alerting: the service (child process) with 100 rules and without, ${settings.symbolicationSeconds} s per case…`);
    results.alerting = await measureAlerting({ seconds: settings.symbolicationSeconds });
  }

  if (phases.has('monitors')) {
    log(`Monitors: check-ins over HTTP and uptime checks of the service (child process), ${settings.symbolicationSeconds} s per case…`);
    results.monitors = await measureMonitors({ seconds: settings.symbolicationSeconds });
  }

  if (phases.has('kafka')) {
    const [events, spans] = quick ? [1000, 10_000] : [10_000, 100_000];
    log(`Beyond one machine: ${events} events and ${spans} spans through ingest -> Kafka -> worker, and in one process…`);
    try {
      results.kafka = await measureKafka({ events, spans, latencySamples: quick ? 20 : 100, log, s3: args['kafka-s3'] });
    } catch (error) {
      // kcat (the mock broker) missing, most likely: the rest of the report stands.
      results.kafka = { na: `n/a (${(error as Error).message.slice(0, 300)})` };
    }
  }
}

async function measureParquet(bodies: IdBodies, rawBytes: number): Promise<NonNullable<Results['storage']>['parquet']> {
  const dataDir = removeLater(tempDir('faultline-bench-parquet-'));
  const configFile = join(dataDir, 'bench-parquet.yaml');
  writeFileSync(
    configFile,
    toYaml({
      receivers: { http_api: {}, otlp: {} },
      processors: { validation: {}, scrubbing: {}, grouping: {} },
      exporters: { parquet: {} },
      service: {
        storage: { events: 'parquet', traces: 'parquet' },
        pipelines: {
          events: { receivers: ['http_api'], processors: ['validation', 'scrubbing', 'grouping'], exporters: ['parquet'] },
          traces: { receivers: ['otlp'], processors: ['validation', 'scrubbing'], exporters: ['parquet'] },
        },
      },
    }),
  );
  const svc = await startChild({ dataDir, configFile });
  cleanup.push(() => svc.child.kill('SIGKILL'));
  const result = await drive({
    url: `${svc.baseUrl}/v1/events`,
    connections: settings.connections,
    duration: settings.parquetSeconds,
    headers: { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/json' },
    nextBody: () => bodies.nextBody(),
  });
  await stopChild(svc); // a graceful stop flushes what is staged into Parquet files
  await sleep(100);
  const isParquet = (name: string) => name.endsWith('.parquet');
  const bytes = directoryBytes(dataDir, isParquet);
  const files = countFiles(dataDir, isParquet);
  if (bytes === 0) return { na: `n/a (the parquet exporter wrote no files for ${result.ok} events)` };
  return { events: result.ok, bytes, files, bytesPerEvent: bytes / result.ok, ratioToRaw: bytes / result.ok / rawBytes, eventsPerSecond: result.okPerSecond };
}

function countFiles(dir: string, match: (name: string) => boolean): number {
  let n = 0;
  const walk = (d: string) => {
    for (const entry of readdirSyncSafe(d)) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (match(entry.name)) n++;
    }
  };
  walk(dir);
  return n;
}

function readdirSyncSafe(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

let failed = false;
try {
  await main();
} catch (error) {
  failed = true;
  log(`benchmark failed: ${(error as Error).stack ?? error}`);
} finally {
  for (const fn of cleanup.reverse()) {
    try {
      await fn();
    } catch {
      // best effort
    }
  }
  if (profDir && !args.keep) rmSync(profDir, { recursive: true, force: true });
  else if (profDir) process.stderr.write(`profiles kept in ${profDir}\n`);
}
results.wallSeconds = (Date.now() - started) / 1000;
results.goals = evaluateGoals(results);
const resultsDir = join(packageRoot, 'bench/results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify(results, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
process.stdout.write(`${formatReport(results)}\n`);
if (results.profiles)
  for (const [name, summary] of Object.entries(results.profiles))
    process.stdout.write(`\n${formatProfile(`CPU profile of the service during the ${name} load`, summary)}\n`);
process.stdout.write(`\nJSON: ${join(resultsDir, 'latest.json')}\n`);
process.exit(failed ? 1 : 0);
