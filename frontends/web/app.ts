// The web app, served by the service's HTTP host on its port, outside /v1: the assembly of its
// parts. Pages are Preact components rendered on the server (every value escaped), grouped by route
// under routes/ (one registration line each in routes/index.ts); kit.ts lends them the signed-in
// GET and the CSRF-checked POST (csrf.ts), the session (session.ts) and the read side; assets.ts
// serves the static files. /v1 never looks at the session: it keeps its bearer keys.
import type { HttpHost, PageHandler } from '../../src/http/host.js';
import type { Storage } from '../../extensions/query/index.js';
import { registerAssets } from './assets.js';
import { createPageKit, type WebAppOptions } from './kit.js';
import { registerPageGroups } from './routes/index.js';
import { issuePageHandler } from './routes/issues.js';

export interface WebApp {
  /** The issue page, for the permalink route (a browser without a key). */
  issuePage: PageHandler;
  /** Mounts the pages; the read side exists once the pipelines started. */
  mount(http: HttpHost, storage: Storage): void;
}

export function createWebApp(options: WebAppOptions): WebApp {
  let reads: { storage: Storage } | undefined;
  const kit = createPageKit(options, () => reads);
  return {
    issuePage: issuePageHandler(kit),
    mount(http, storage) {
      reads = { storage };
      registerAssets(http);
      registerPageGroups(http, kit);
    },
  };
}
