// The admin socket: a Unix socket in the data directory (mode 0600, so only the service's user
// reaches it) through which the CLI manages keys and projects while the service runs.
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { CatalogError, type Catalog } from '../../extensions/catalog/catalog.js';
import type { Quarantine } from '../../extensions/quarantine/quarantine.js';
import type { Alerts } from '../../extensions/alerts/alerts.js';
import { socketPath, USER_CHANGES, type UserChange } from './operations.js';
import type { Role, Users } from '../../extensions/catalog/users.js';

const MAX_SOCKET_PATH = 107;

export class AdminServer {
  private server?: Server;
  private path?: string;

  constructor(
    private readonly catalog: Catalog,
    private readonly quarantine: Quarantine,
    private readonly alerts: Alerts,
    private readonly logger: Logger,
    private readonly users?: Users,
  ) {}

  async listen(dataDir: string): Promise<void> {
    const path = socketPath(dataDir);
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
      this.logger.warn({ path }, 'data directory path too long for the admin socket; `faultline keys|projects` work only while the service is stopped');
      return;
    }
    if (existsSync(path)) unlinkSync(path); // left by a process that died; we hold the database lock, so it is not live
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
    this.server = server;
    this.path = path;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (this.path && existsSync(this.path)) unlinkSync(this.path);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const body = req.method === 'POST' ? await readJson(req) : {};
      const result = await this.dispatch(req.method ?? 'GET', req.url ?? '/', body);
      send(res, 200, result);
    } catch (error) {
      if (error instanceof CatalogError) {
        const status = { not_found: 404, conflict: 409, invalid: 400 }[error.code];
        send(res, status, { error: { code: error.code, message: error.message } });
      } else {
        this.logger.error({ err: error }, 'admin request failed');
        send(res, 500, { error: { code: 'internal', message: (error as Error).message } });
      }
    }
  }

  private dispatch(method: string, url: string, body: Record<string, unknown>): Promise<unknown> {
    const route = `${method} ${url}`;
    const text = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : undefined);
    if (route === 'GET /keys') return this.catalog.listKeys();
    if (route === 'POST /keys')
      return this.catalog.createKey({
        dataset: body.dataset === 'test' ? 'test' : 'live',
        projectId: text('projectId'),
        name: text('name'),
        dsn: body.dsn === true,
      });
    const origins = /^POST \/projects\/([^/]+)\/origins$/.exec(route);
    if (origins)
      return this.catalog.setAllowedOrigins(
        decodeURIComponent(origins[1]),
        Array.isArray(body.origins) ? body.origins.filter((o): o is string => typeof o === 'string') : null,
      );
    const revoke = /^POST \/keys\/([^/]+)\/revoke$/.exec(route);
    if (revoke) return this.catalog.revokeKey(decodeURIComponent(revoke[1]));
    if (route === 'GET /projects') return this.catalog.listProjects();
    if (route === 'POST /projects') return this.catalog.createProject({ id: text('id') ?? '', name: text('name') ?? '', platform: text('platform') });
    if (route === 'POST /quarantine/list')
      return this.quarantine.list({ limit: typeof body.limit === 'number' ? body.limit : undefined, withDocuments: body.withDocuments === true });
    if (route === 'GET /alerts') return Promise.resolve(this.alerts.rules.all());
    const test = /^POST \/alerts\/([^/]+)\/test$/.exec(route);
    if (test) return this.testAlert(decodeURIComponent(test[1]));
    if (route === 'POST /users' && this.users) {
      const users = this.users;
      return this.catalog
        .defaultOrganization()
        .then((org) =>
          users.create({ email: text('email') ?? '', role: (text('role') ?? 'member') as Role, passwordHash: text('passwordHash') ?? '', orgId: org.id }),
        );
    }
    if (route === 'GET /users' && this.users) return this.users.list();
    const user = /^POST \/users\/([^/]+)\/([a-z]+)$/.exec(route);
    if (user && this.users) {
      const ref = decodeURIComponent(user[1]);
      if (user[2] === 'password') return this.users.setPassword(ref, text('passwordHash') ?? '');
      if ((USER_CHANGES as readonly string[]).includes(user[2])) return this.users[user[2] as UserChange](ref);
    }
    return Promise.reject(new CatalogError('not_found', `no admin route ${route}`));
  }

  private async testAlert(id: string): Promise<{ key: string; deliveries: number }> {
    const rule = this.alerts.rules.get(id);
    if (!rule) throw new CatalogError('not_found', `no alert rule ${id}`);
    if (!this.alerts.delivering) throw new CatalogError('invalid', 'no alerting processor runs in this service, so nothing would deliver the notification');
    const project = await this.catalog.project(rule.project_id);
    return this.alerts.test(rule, { id: rule.project_id, name: project?.name ?? rule.project_id });
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
