// The read API: mounted by the service on its HTTP host for every resource whose data some
// exporter serves reads of, whatever receivers and pipelines the node runs (a query node runs none),
// and the control plane's routes (projects, source maps, alert rules), always.
import type { HttpHost } from '../../src/http/host.js';
import { alertRoutes } from './alerts.js';
import type { ApiContext } from './context.js';
import { eventRoutes } from './events.js';
import { issueRoutes } from './issues.js';
import { bulkTriageRoutes } from './issue-triage.js';
import { issueMergeRoutes } from './issue-merge.js';
import { projectRoutes } from './projects.js';
import { releaseRoutes } from './releases.js';
import { replayRoutes } from './replays.js';
import { sentryCliRoutes } from './sentry-cli.js';
import { sourcemapRoutes } from './sourcemaps.js';
import { traceRoutes } from './traces.js';

export function mountReadApi(http: HttpHost, api: ApiContext): string[] {
  const mounted: string[] = ['projects', 'sourcemaps', 'alerts'];
  const routes = [...projectRoutes(api), ...sourcemapRoutes(api), ...sentryCliRoutes(api), ...alertRoutes(api)];
  if (api.storage.reads('events')) {
    routes.push(...eventRoutes(api), ...issueRoutes(api), ...bulkTriageRoutes(api), ...issueMergeRoutes(api), ...releaseRoutes(api));
    mounted.push('events', 'issues', 'releases');
  }
  if (api.storage.reads('traces')) {
    routes.push(...traceRoutes(api));
    mounted.push('traces');
  }
  if (api.storage.reads('replays')) {
    routes.push(...replayRoutes(api));
    mounted.push('replays');
  }
  for (const route of routes) http.route(route);
  return mounted;
}
