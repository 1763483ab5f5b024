export interface ConfigError {
  /** The YAML path, e.g. `service.pipelines.events.exporters[0]`. */
  path: string;
  message: string;
  /** 1-based line in the YAML file, where known. */
  line?: number;
}

export class ConfigInvalidError extends Error {
  constructor(
    readonly source: string,
    readonly errors: ConfigError[],
  ) {
    super(`${source}: ${errors.length} configuration error(s)\n${errors.map(formatConfigError).join('\n')}`);
    this.name = 'ConfigInvalidError';
  }
}

export function formatConfigError(error: ConfigError): string {
  return `  ${error.line ? `line ${error.line}: ` : ''}${error.path || '(root)'}: ${error.message}`;
}
