// `faultline keys …`, `faultline projects …`, `faultline quarantine …` and `faultline alerts …`, through the admin socket or the database.
import type { Command, Option } from 'commander';
import { withAdmin } from '../admin/client.js';
import { fail, loadConfig } from './config.js';
import { table } from './table.js';

function dataDir(options: { config?: string }): string {
  return loadConfig(options.config).settings.data_dir;
}

export function keysCommand(keys: Command, configOption: () => Option): void {
  keys
    .command('create')
    .description('Create an API key; its secret is printed alone on the last line')
    .option('--org', 'an organization key (reaches every project)')
    .option('--project <id>', 'a project key (reaches one project)')
    .option('--test', 'a sandbox key (fl_test_…) instead of a production one (fl_live_…)')
    .option('--name <label>', 'a label to recognise the key by')
    .option('--dsn', 'a DSN key for Sentry SDKs (with --project): ingest only, never reads; GET /v1/projects shows its DSN')
    .addOption(configOption())
    .action(async (options: { org?: boolean; project?: string; test?: boolean; name?: string; dsn?: boolean; config?: string }) => {
      if (Boolean(options.org) === Boolean(options.project)) fail('say either --org or --project ID');
      if (options.dsn && !options.project) fail('a DSN key belongs to one project: say --project ID');
      const created = await withAdmin(dataDir(options), (ops) =>
        ops.createKey({ dataset: options.test ? 'test' : 'live', projectId: options.project, name: options.name, dsn: options.dsn }),
      ).catch(fail);
      const scope = created.key.project_id ? `project ${created.key.project_id}` : `organization ${created.key.org_id}`;
      if (created.key.kind === 'dsn') {
        const projects = await withAdmin(dataDir(options), (ops) => ops.listProjects()).catch(fail);
        const project = projects.find((p) => p.id === created.key.project_id);
        const appUrl = loadConfig(options.config).settings.app_url;
        const url = new URL(appUrl);
        const dsn = `${url.protocol}//${created.secret}@${url.host}${url.pathname.replace(/\/+$/, '')}/${project?.ingest_id ?? '?'}`;
        process.stdout.write(`Created ${created.key.dataset} DSN key ${created.key.id} for ${scope}. Its DSN:\n${dsn}\n`);
        return;
      }
      process.stdout.write(`Created ${created.key.dataset} key ${created.key.id} for ${scope}. The secret is shown once:\n${created.secret}\n`);
    });

  keys
    .command('list')
    .description('List API keys (never their secrets)')
    .addOption(configOption())
    .action(async (options: { config?: string }) => {
      const list = await withAdmin(dataDir(options), (ops) => ops.listKeys()).catch(fail);
      const rows = list.map((k) => ({ ...k, scope: k.project_id ? `project:${k.project_id}` : `org:${k.org_id}` }));
      process.stdout.write(`${table(rows, ['id', 'kind', 'dataset', 'scope', 'name', 'display_prefix', 'created_at', 'revoked_at'])}\n`);
    });

  keys
    .command('revoke')
    .description('Revoke an API key; it stops working at once')
    .argument('<key_id>')
    .addOption(configOption())
    .action(async (keyId: string, options: { config?: string }) => {
      const key = await withAdmin(dataDir(options), (ops) => ops.revokeKey(keyId)).catch(fail);
      process.stdout.write(`Revoked ${key.id} at ${key.revoked_at}\n`);
    });
}

export function projectsCommand(projects: Command, configOption: () => Option): void {
  projects
    .command('create')
    .description('Create a project')
    .requiredOption('--id <id>', 'project id: a-z, 0-9, _ and -')
    .requiredOption('--name <name>', 'display name')
    .option('--platform <platform>', 'e.g. javascript, node, python')
    .addOption(configOption())
    .action(async (options: { id: string; name: string; platform?: string; config?: string }) => {
      const project = await withAdmin(dataDir(options), (ops) => ops.createProject({ id: options.id, name: options.name, platform: options.platform })).catch(
        fail,
      );
      process.stdout.write(`Created project ${project.id} (${project.name})\n`);
    });

  projects
    .command('list')
    .description('List projects')
    .addOption(configOption())
    .action(async (options: { config?: string }) => {
      const list = await withAdmin(dataDir(options), (ops) => ops.listProjects()).catch(fail);
      process.stdout.write(`${table(list as unknown as Array<Record<string, unknown>>, ['id', 'ingest_id', 'name', 'platform', 'org_id', 'created_at'])}\n`);
    });

  projects
    .command('origins')
    .description('Set the origins browser SDKs may send from (CORS); no origin: any (*)')
    .argument('<project_id>')
    .argument('[origins...]', 'e.g. https://shop.example.com')
    .addOption(configOption())
    .action(async (projectId: string, origins: string[], options: { config?: string }) => {
      const project = await withAdmin(dataDir(options), (ops) => ops.setAllowedOrigins(projectId, origins.length ? origins : null)).catch(fail);
      process.stdout.write(`Project ${project.id} takes Sentry SDK requests from ${project.allowed_origins?.join(', ') ?? 'any origin (*)'}\n`);
    });
}

export function quarantineCommand(quarantine: Command, configOption: () => Option): void {
  quarantine
    .command('list')
    .description('List acknowledged items a later stage could not store, newest first, with the reason')
    .option('--limit <n>', 'most items to list', '100')
    .option('--json', 'one JSON array, documents included')
    .addOption(configOption())
    .action(async (options: { limit: string; json?: boolean; config?: string }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1) fail('--limit takes a positive whole number');
      const items = await withAdmin(dataDir(options), (ops) => ops.listQuarantine({ limit, withDocuments: options.json === true })).catch(fail);
      if (options.json) process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
      else if (items.length === 0) process.stdout.write('The quarantine is empty.\n');
      else
        process.stdout.write(
          `${table(items as unknown as Array<Record<string, unknown>>, ['quarantined_at', 'component', 'signal', 'project_id', 'item_key', 'reason'])}\n`,
        );
    });
}

export function alertsCommand(alerts: Command, configOption: () => Option): void {
  alerts
    .command('list')
    .description('List alert rules of every project, live and sandbox, with their state')
    .option('--json', 'one JSON array of the rules (webhook secrets left out)')
    .addOption(configOption())
    .action(async (options: { json?: boolean; config?: string }) => {
      const rules = await withAdmin(dataDir(options), (ops) => ops.listAlerts()).catch(fail);
      const shown = rules.map((rule) => ({
        ...rule,
        actions: rule.actions.map((action) =>
          action.type === 'webhook' ? { type: action.type, url: action.url, secret_set: action.secret !== undefined } : action,
        ),
      }));
      if (options.json) process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      else if (rules.length === 0) process.stdout.write('No alert rules. Create one with POST /v1/alerts.\n');
      else
        process.stdout.write(
          `${table(
            shown.map((rule) => ({
              ...rule,
              enabled: rule.enabled ? 'yes' : 'muted',
              actions: rule.actions.map((a) => a.type).join(','),
              last_fired_at: rule.last_fired_at === null ? null : new Date(rule.last_fired_at).toISOString(),
            })),
            ['id', 'dataset', 'project_id', 'type', 'name', 'enabled', 'state', 'actions', 'last_fired_at'],
          )}\n`,
        );
    });

  alerts
    .command('test')
    .description("Send a test notification through a rule's actions (the service must be running)")
    .argument('<rule_id>')
    .addOption(configOption())
    .action(async (ruleId: string, options: { config?: string }) => {
      const queued = await withAdmin(dataDir(options), (ops) => ops.testAlert(ruleId)).catch(fail);
      process.stdout.write(
        `Queued test notification ${queued.key} through ${queued.deliveries} action${queued.deliveries === 1 ? '' : 's'}; \`GET /v1/alerts/${ruleId}\` shows how it went.\n`,
      );
    });
}
