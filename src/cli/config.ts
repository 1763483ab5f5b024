import { ConfigInvalidError } from '../config/errors.js';
import { readConfigFile } from '../config/load.js';
import { resolveConfig, type ResolvedConfig } from '../config/resolve.js';
import { defaultRegistry } from '../components.js';

/** The checked configuration, or a ConfigInvalidError listing every problem. */
export function loadConfig(file: string | undefined, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const source = readConfigFile(file);
  const { config, errors } = resolveConfig(source, defaultRegistry(), env);
  if (!config) throw new ConfigInvalidError(source.name, errors);
  return config;
}

/** Prints an error for a person and exits non-zero. */
export function fail(error: unknown): never {
  process.stderr.write(`faultline: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
