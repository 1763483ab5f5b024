// What a group of pages gets from the web app (app.ts) to register its routes: the signed-in GET
// and CSRF-checked POST wrappers, the read side, the session's projects, and the responses. Each
// group lives in its own module under src/web/routes and registers with one call.
import type { Principal } from '../../src/auth/authenticator.js';
import type { H3Event } from 'h3';
import type { PageHandler } from '../../src/http/host.js';
import type { Alerts } from '../../src/storage/alerts.js';
import type { ArtifactStore } from '../../src/storage/artifacts.js';
import type { Catalog, Project } from '../../src/storage/catalog.js';
import type { Database } from '../../src/storage/database.js';
import type { Storage } from '../../src/storage/storage.js';
import type { Session } from '../../src/storage/users.js';
import type { WebData } from './data.js';
import type { Child } from './jsx.js';
import type { Viewer } from './pages/layout.js';
import type { ReplaySource } from './replays.js';

export interface Signed {
  session: Session;
  token: string;
  viewer: Viewer;
  principal: Principal;
}

export interface PageKit {
  catalog: Catalog;
  /** The service's DuckDB database, for pages over tables a component keeps there (monitors). */
  database: Database;
  alerts: Alerts;
  artifacts: ArtifactStore;
  replays?: ReplaySource;
  appUrl: string;
  /** A GET page for a signed-in user. */
  view(build: (event: H3Event, s: Signed) => Promise<Response>): PageHandler;
  /** A state-changing POST: a session, this origin, the session's CSRF token, and the role if given. */
  action(act: (event: H3Event, s: Signed, form: FormData) => Promise<Response>, role?: 'admin'): PageHandler;
  /** The read side, or a 503 page while the service starts. */
  need(): { storage: Storage; data: WebData };
  projectsOf(s: Signed): Promise<Project[]>;
  /** The requested project if the session reaches it, else the organization's default. */
  pickProject(s: Signed, requested: string | null): Promise<{ project: Project; projects: Project[] }>;
  html(vnode: Child, status?: number, headers?: Record<string, string>): Response;
  redirect(location: string): Response;
  /** Ends the request with an error page of this status. */
  fail(status: number, message: string): never;
}
