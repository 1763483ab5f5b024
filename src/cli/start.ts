import { Service } from '../service.js';
import { fail, loadConfig } from './config.js';

export async function startCommand(options: { config?: string }): Promise<void> {
  let service: Service;
  try {
    service = await Service.open(loadConfig(options.config));
  } catch (error) {
    fail(error);
  }
  let signals = 0;
  const stop = (signal: string) => {
    if (++signals > 1) process.exit(1); // a second signal: stop now
    service.host.logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        service.host.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const started = await service.start().catch(fail);
  const { settings } = service.host;
  const lines = [`Faultline ${settings.app_url} (HTTP on ${settings.http.host}:${started.httpPort}, data in ${settings.data_dir})`];
  for (const [receiver, port] of Object.entries(started.listeners)) lines.push(`  ${receiver} listening on port ${port}`);
  if (started.bootstrap) {
    const { bootstrap } = started;
    lines.push(
      `Created organization "${bootstrap.organizationId}" and project "${bootstrap.projectId}". These keys are shown once:`,
      `  live key: ${bootstrap.live.secret}`,
      `  test key: ${bootstrap.test.secret}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
