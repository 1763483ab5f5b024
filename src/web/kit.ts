// What a group of pages gets from the web app (app.ts) to register its routes: the signed-in GET
// and CSRF-checked POST wrappers, the read side, the session's projects, and the responses. Each
// group lives in its own module under src/web/routes and registers with one call.
import type { Principal } from '../auth/authenticator.js';
import type { H3Event } from 'h3';
import type { PageHandler } from '../http/host.js';
import type { Alerts } from '../../extensions/alerts/alerts.js';
import type { ArtifactStore } from '../../extensions/artifacts/artifacts.js';
import type { Catalog, Project } from '../../extensions/catalog/catalog.js';
import type { Database } from '../../extensions/duckdb/database.js';
import type { Storage } from '../storage/storage.js';
import type { Session } from '../../extensions/catalog/users.js';
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
