// Summaries of V8 CPU profiles (.cpuprofile, written by `node --cpu-prof`): self time per
// function and per package/area, so the report can say where the service's main thread went.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  where: string;
  selfMs: number;
  selfShare: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Share of samples in which the main thread was idle (waiting: I/O, DuckDB threads, the client). */
  idleShare: number;
  top: ProfileEntry[];
  /** Self time by area: a package under node_modules, a folder of the project, node internals, GC. */
  areas: ProfileEntry[];
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist !== -1) return url.slice(dist + '/dist/'.length);
  return url.replace(/^file:\/\//, '');
}

function areaOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) {
    if (functionName === '(garbage collector)') return '(garbage collector)';
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(program)') return '(program: native, V8, libuv)';
    return `(native ${functionName || 'anonymous'})`;
  }
  if (url.startsWith('node:')) return `node internals (${url.slice(5).split('/')[0]})`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const dist = url.indexOf('/dist/');
  if (dist !== -1) {
    const parts = url.slice(dist + '/dist/'.length).split('/');
    return parts.slice(0, parts[0] === 'src' ? 2 : 2).join('/');
  }
  return url;
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const fns = new Map<string, ProfileEntry>();
  const areas = new Map<string, ProfileEntry>();
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') idle += us;
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    const key = `${functionName}\0${where}`;
    const entry = fns.get(key) ?? { name: functionName || '(anonymous)', where, selfMs: 0, selfShare: 0 };
    entry.selfMs += us / 1000;
    fns.set(key, entry);
    const area = areaOf(node);
    const a = areas.get(area) ?? { name: area, where: '', selfMs: 0, selfShare: 0 };
    a.selfMs += us / 1000;
    areas.set(area, a);
  }
  const finish = (list: ProfileEntry[]) =>
    list.map((e) => ({ ...e, selfMs: Math.round(e.selfMs), selfShare: total ? e.selfMs / (total / 1000) : 0 })).sort((a, b) => b.selfMs - a.selfMs);
  return {
    file,
    totalMs: Math.round(total / 1000),
    idleShare: total ? idle / total : 0,
    top: finish([...fns.values()]).slice(0, top),
    areas: finish([...areas.values()]).slice(0, 15),
  };
}

export function newestProfile(dir: string): string | undefined {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  return files.length ? join(dir, files[files.length - 1]) : undefined;
}

export function formatProfile(title: string, summary: ProfileSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
  const lines = [`${title}: ${summary.totalMs} ms sampled, main thread idle ${pct(summary.idleShare).trim()}`, '  by area (self time):'];
  for (const a of summary.areas) lines.push(`    ${pct(a.selfShare)}  ${a.name}`);
  lines.push('  top functions (self time):');
  for (const f of summary.top) lines.push(`    ${pct(f.selfShare)}  ${f.name}  ${f.where}`);
  return lines.join('\n');
}

// `node dist/bench/profile.js FILE.cpuprofile`: print the summary of one profile.
if (process.argv[1]?.endsWith('/bench/profile.js') && process.argv[2]) console.log(formatProfile(process.argv[2], summarizeProfile(process.argv[2], 30)));
