import { formatConfigError } from '../config/errors.js';
import { readConfigFile } from '../config/load.js';
import { resolveConfig } from '../config/resolve.js';
import { defaultRegistry } from '../components.js';

export function validateCommand(options: { config?: string }): void {
  const source = readConfigFile(options.config);
  const { config, errors } = resolveConfig(source, defaultRegistry(), process.env);
  if (!config) {
    process.stdout.write(`${source.name}: ${errors.length} error(s)\n${errors.map(formatConfigError).join('\n')}\n`);
    process.exit(1);
  }
  const lines = config.pipelines.map(
    (p) => `  ${p.id}: ${p.receivers.join(', ')} -> ${p.processors.length ? p.processors.join(' -> ') : '(no processors)'} -> ${p.exporters.join(', ')}`,
  );
  for (const [id, { factory }] of config.components.connector)
    if (factory.kind === 'connector') lines.push(`  connector ${id}: ${factory.from} -> ${factory.to}`);
  const reads = Object.entries(config.readSources).map(([signal, ids]) => `${signal} from ${ids.join(', ')}`);
  if (reads.length) lines.push(`  reads: ${reads.join('; ')}`);
  process.stdout.write(`${source.name}: valid, ${config.pipelines.length} pipeline(s)\n${lines.join('\n')}\n`);
  if (config.warnings.length) process.stdout.write(`${config.warnings.length} warning(s)\n${config.warnings.map(formatConfigError).join('\n')}\n`);
}
