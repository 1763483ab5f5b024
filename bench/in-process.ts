// The service in this process, as the tests start it: only for phases that measure components in
// one process on purpose (kafka.ts's roles). The load and read phases drive a child process.
import { pino } from 'pino';
import { defaultRegistry } from '../src/components.js';
import { parseConfigText, readConfigFile } from '../src/config/load.js';
import { resolveConfig } from '../src/config/resolve.js';
import { Service } from '../src/service.js';
import { catalogOf } from '../extensions/catalog/index.js';

export interface InProcessService {
  service: Service;
  baseUrl: string;
  liveKey: string;
  stop(): Promise<void>;
}

/** The service in this process on `dataDir` (bootstrapped on its first start, or seeded with a catalog whose live key is `seededKey`), as the tests start it. */
export async function startInProcess(
  dataDir: string,
  yaml?: string,
  options: { env?: Record<string, string>; seededKey?: string } = {},
): Promise<InProcessService> {
  const env = { FAULTLINE_DATA_DIR: dataDir, FAULTLINE_HTTP_PORT: '0', FAULTLINE_OTLP_PORT: '0', FAULTLINE_APP_URL: 'http://faultline.bench', ...options.env };
  const source = yaml ? parseConfigText(yaml, 'bench.yaml') : readConfigFile(undefined);
  const { config, errors } = resolveConfig(source, defaultRegistry(), env);
  if (!config) throw new Error(`invalid config: ${JSON.stringify(errors)}`);
  const service = await Service.open(config, pino({ level: 'silent' }));
  const started = await service.start();
  // A catalog bootstrapped by an earlier run (rows reused with --data: large.ts) gets a new key.
  const liveKey =
    started.bootstrap?.live.secret ?? options.seededKey ?? (await catalogOf(service.host).createKey({ dataset: 'live', projectId: 'default' })).secret;
  return {
    service,
    baseUrl: `http://127.0.0.1:${started.httpPort}`,
    liveKey,
    stop: () => service.stop(),
  };
}
