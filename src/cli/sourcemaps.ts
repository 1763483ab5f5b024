// `faultline sourcemaps upload`: a build's source maps, minified sources, ProGuard mapping files
// and Breakpad symbol files, sent to the running service (POST /v1/sourcemaps, multipart, each
// file streamed from disk). Debug ids injected by `sentry-cli sourcemaps inject` or a bundler
// plugin are read by the service from the files themselves.
import { openAsBlob } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Command, Option } from 'commander';
import { looksLikeProguard, readHead } from '../records/artifact-content.js';
import { fail, loadConfig } from './config.js';
import { table } from './table.js';

interface UploadOptions {
  project: string;
  release: string;
  dist?: string;
  urlPrefix: string;
  url?: string;
  key?: string;
  config?: string;
}

interface UploadedBundle {
  id: string;
  project_id: string;
  release: string;
  dist: string | null;
  files: Array<{ name: string; type: string; size: number; sha256: string; debug_id: string | null }>;
}

const UPLOADED = /\.(?:js|mjs|cjs|map|sym)$/;

export function sourcemapsCommand(sourcemaps: Command, configOption: () => Option): void {
  sourcemaps
    .command('upload')
    .description(
      "Upload a build's .js/.mjs/.cjs/.map files, ProGuard mapping files (.txt) and Breakpad symbols (.sym) under DIR to the running service, as one bundle",
    )
    .argument('<dir>', 'the build output, walked recursively')
    .requiredOption('--project <id>', 'the project the files belong to')
    .requiredOption('--release <release>', "the release, as the events' release names it")
    .option('--dist <dist>', 'the distribution of the release, as the events name it')
    .option('--url-prefix <prefix>', "each file is named <prefix>/<path relative to DIR>; '~' matches any scheme and host", '~')
    .option('--url <url>', 'the service (default: http://<service.http.host>:<service.http.port> of the configuration)')
    .option('--key <key>', 'an API key reaching the project (default: $FAULTLINE_KEY)')
    .addOption(configOption())
    .action(async (dir: string, options: UploadOptions) => {
      const key = options.key ?? process.env.FAULTLINE_KEY;
      if (!key) fail('give an API key with --key or FAULTLINE_KEY');
      const base = (options.url ?? defaultUrl(options.config)).replace(/\/+$/, '');
      const { files, skipped } = await collect(dir).catch(fail);
      for (const path of skipped) process.stderr.write(`skipped ${path}: a .txt file that is not a ProGuard mapping\n`);
      if (files.length === 0) fail(`no .js, .mjs, .cjs, .map, .sym or ProGuard .txt files under ${dir}`);

      const body = new FormData();
      body.append('project_id', options.project);
      body.append('release', options.release);
      if (options.dist !== undefined) body.append('dist', options.dist);
      const prefix = options.urlPrefix.replace(/\/+$/, '');
      const names = files.map((file) => (prefix ? `${prefix}/${file}` : file));
      for (const [i, file] of files.entries()) body.append('file', await openAsBlob(join(dir, file)), names[i]);

      const response = await fetch(`${base}/v1/sourcemaps`, { method: 'POST', body, headers: { authorization: `Bearer ${key}` } }).catch((error: unknown) =>
        fail(`cannot reach ${base}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`),
      );
      const text = await response.text();
      if (response.status !== 201) fail(errorMessage(response.status, text, names));
      const bundle = JSON.parse(text) as UploadedBundle;
      process.stdout.write(`${table(bundle.files, ['name', 'type', 'size', 'debug_id'])}\n`);
      const dist = bundle.dist === null ? '' : `, dist ${bundle.dist}`;
      const count = `${bundle.files.length} file${bundle.files.length === 1 ? '' : 's'}`;
      process.stdout.write(`Uploaded ${count} to bundle ${bundle.id} (project ${bundle.project_id}, release ${bundle.release}${dist})\n`);
    });
}

/** The files to upload under `dir` (relative, with `/`, sorted), and the .txt files left out. */
async function collect(dir: string): Promise<{ files: string[]; skipped: string[] }> {
  const files: string[] = [];
  const skipped: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const name = relative(dir, path).split(sep).join('/');
    if (UPLOADED.test(entry.name)) files.push(name);
    else if (entry.name.endsWith('.txt')) (looksLikeProguard(await readHead(path, 64 * 1024)) ? files : skipped).push(name);
  }
  return { files: files.sort(), skipped: skipped.sort() };
}

/** The service's URL from the configuration's HTTP listener. */
export function defaultUrl(config: string | undefined): string {
  const { host, port } = loadConfig(config).settings.http;
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** The error body's message and details (a file's by its name: files[i] is the i-th file part), or the status when the body is not one. */
function errorMessage(status: number, text: string, names: readonly string[]): string {
  try {
    const { error } = JSON.parse(text) as { error: { message: string; details?: Array<{ path: string; message: string }> } };
    const named = (path: string) => {
      const file = /^files\[(\d+)\]/.exec(path);
      return file && names[Number(file[1])] !== undefined ? `${names[Number(file[1])]} (${path})` : path;
    };
    const details = (error.details ?? []).map((d) => `\n  ${named(d.path)}: ${d.message}`).join('');
    return `upload failed (${status}): ${error.message}${details}`;
  } catch {
    return `upload failed with status ${status}`;
  }
}
