// The config variants the feature phases start the service with: `config/default.yaml` as shipped,
// with a processor taken out of its pipelines or a component's section replaced.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** A YAML config as a plain object tree. */
export interface ConfigDoc {
  receivers?: Record<string, Record<string, unknown> | null>;
  processors?: Record<string, Record<string, unknown> | null>;
  exporters?: Record<string, Record<string, unknown> | null>;
  service: { pipelines: Record<string, { receivers: string[]; processors?: string[]; exporters: string[] }> } & Record<string, unknown>;
  [section: string]: unknown;
}

/** config/default.yaml of the package this file is in (run from dist/bench/ or, in the tests, from bench/). */
function defaultConfigPath(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const path = join(dir, 'config', 'default.yaml');
    if (existsSync(path)) return path;
  }
  throw new Error('config/default.yaml not found above bench/');
}

/** The shipped default config (`config/default.yaml`), parsed afresh. */
export function defaultConfig(): ConfigDoc {
  return parse(readFileSync(defaultConfigPath(), 'utf8')) as ConfigDoc;
}

/** `doc` with `processor` taken out of the named pipelines (and its section, when no pipeline uses it any more). */
export function withoutProcessor(doc: ConfigDoc, processor: string, pipelines = Object.keys(doc.service.pipelines)): ConfigDoc {
  const out = structuredClone(doc);
  for (const id of pipelines) {
    const pipeline = out.service.pipelines[id];
    if (pipeline?.processors) pipeline.processors = pipeline.processors.filter((p) => p !== processor);
  }
  if (!Object.values(out.service.pipelines).some((p) => p.processors?.includes(processor))) delete out.processors?.[processor];
  return out;
}

/** `doc` with a component's section replaced. */
export function withSection(doc: ConfigDoc, kind: 'receivers' | 'processors' | 'exporters', id: string, section: Record<string, unknown>): ConfigDoc {
  const out = structuredClone(doc);
  out[kind] = { ...out[kind], [id]: section };
  return out;
}

/** Rules a team might keep: library code out of the app, proxies and logging out of the group, two fingerprints. */
export const GROUPING_RULES = {
  stacktrace: [
    'family:javascript path:**/node_modules/** -app',
    'path:**/vendor/** -app',
    'function:*Proxy* -group',
    'family:jvm module:org.springframework.** -app',
    'function:log* -group',
  ],
  fingerprint: ['type:ChunkLoadError -> chunk-load-failed', 'type:DatabaseError value:"connection*" -> database-connection'],
};

/** The default config with the grouping rules above. */
export function groupingRulesConfig(): ConfigDoc {
  return withSection(defaultConfig(), 'processors', 'grouping', { rules: GROUPING_RULES });
}

/** The default config storing events unscrubbed (`enabled: false`: a storing pipeline cannot drop the processor). */
export function scrubbingOffConfig(): ConfigDoc {
  return withSection(defaultConfig(), 'processors', 'scrubbing', { enabled: false });
}

/** The default config with the monitors receiver allowed to reach loopback, every second. */
export function monitorsConfig(): ConfigDoc {
  return withSection(defaultConfig(), 'receivers', 'monitors', {
    allow_private_destinations: true,
    min_uptime_interval_seconds: 1,
    detection_interval_ms: 100,
    // The phase offers one monitor tens of check-ins a second to measure each one's cost.
    checkin_rate_per_minute: 0,
  });
}
