// What a group of pages gets from the web app to register its routes: the signed-in GET and
// CSRF-checked POST wrappers, the read side, the session's projects, and the responses. Each
// group lives in its own module under routes/ and registers with one line in routes/index.ts.
import type { H3Event } from 'h3';
import type { Logger } from 'pino';
import type { Principal } from '../../src/auth/authenticator.js';
import { reachableProjects } from '../../src/auth/scope.js';
import type { PageHandler } from '../../src/http/host.js';
import type { Alerts } from '../../extensions/alerts/alerts.js';
import type { ArtifactStore } from '../../extensions/artifacts/artifacts.js';
import type { Catalog, Project } from '../../extensions/catalog/catalog.js';
import type { Database } from '../../extensions/duckdb/database.js';
import type { Storage } from '../../extensions/query/index.js';
import type { Session, Users } from '../../extensions/catalog/users.js';
import { carriesToken, fromOwnPage } from './csrf.js';
import { readForm } from './form.js';
import type { Child } from './jsx.js';
import { ErrorPage, type Viewer } from './pages/layout.js';
import type { ReplaySource } from './replays.js';
import { failurePage, formRefusedPage, html, PageError, redirect } from './responses.js';
import { sessionReader, toSignIn } from './session.js';

export interface Signed {
  session: Session;
  token: string;
  viewer: Viewer;
  principal: Principal;
}

/** What the service hands the web app. */
export interface WebAppOptions {
  catalog: Catalog;
  users: Users;
  database: Database;
  alerts: Alerts;
  artifacts: ArtifactStore;
  appUrl: string;
  logger: Logger;
  /** The replays store's reads; absent until that store is part of the build. */
  replays?: ReplaySource;
  /** `service.web`: the form body cap and whether to trust X-Forwarded-For. */
  web: { max_form_bytes: number; trust_proxy: boolean };
}

export interface PageKit extends WebAppOptions {
  /** Whether the app is served over https (cookies are then Secure). */
  secure: boolean;
  /** The request's session, or undefined. */
  signedIn(event: H3Event): Promise<Signed | undefined>;
  /** A GET page for a signed-in user. */
  view(build: (event: H3Event, s: Signed) => Promise<Response>): PageHandler;
  /** A state-changing POST: a session, this origin, the session's CSRF token, and the role if given. */
  action(act: (event: H3Event, s: Signed, form: FormData) => Promise<Response>, role?: 'admin'): PageHandler;
  /** The read side, or a 503 page while the service starts. */
  need(): { storage: Storage };
  projectsOf(s: Signed): Promise<Project[]>;
  /** The requested project if the session reaches it, else the organization's default. */
  pickProject(s: Signed, requested: string | null): Promise<{ project: Project; projects: Project[] }>;
  html(vnode: Child, status?: number, headers?: Record<string, string>, csp?: string): Response;
  redirect(location: string, headers?: Record<string, string> | Array<[string, string]>): Response;
  /** Ends the request with an error page of this status. */
  fail(status: number, message: string): never;
}

/** The kit every page group uses; `reads` is the read side once the pipelines started. */
export function createPageKit(options: WebAppOptions, reads: () => { storage: Storage } | undefined): PageKit {
  const { catalog, appUrl } = options;
  const signedIn = sessionReader(options.users);

  const view =
    (build: (event: H3Event, s: Signed) => Promise<Response>): PageHandler =>
    async (event) => {
      const s = await signedIn(event).catch(() => undefined);
      if (!s) return toSignIn(event);
      try {
        return await build(event, s);
      } catch (error) {
        return failurePage(options.logger, error, s.viewer);
      }
    };

  const action =
    (act: (event: H3Event, s: Signed, form: FormData) => Promise<Response>, role?: 'admin'): PageHandler =>
    async (event) => {
      const s = await signedIn(event).catch(() => undefined);
      if (!s) return html(ErrorPage({ status: 403, message: 'Sign in first: this form needs a session.' }), 403);
      const fail = (status: number, message: string) => failurePage(options.logger, new PageError(status, message), s.viewer);
      if (!fromOwnPage(event, appUrl)) return fail(403, 'This form was posted from another site.');
      const read = await readForm(event, options.web.max_form_bytes);
      if ('refused' in read) return formRefusedPage(read.refused, s.viewer);
      const form = read.fields;
      if (!carriesToken(form, s.session.csrf))
        return fail(403, 'The form was stale or not from this site (its CSRF token did not match). Reload the page and try again.');
      if (role === 'admin' && s.session.user.role !== 'admin') return fail(403, 'Only admins can do this.');
      try {
        return await act(event, s, form);
      } catch (error) {
        return failurePage(options.logger, error, s.viewer);
      }
    };

  const need = () => {
    const ready = reads();
    if (!ready) throw new PageError(503, 'The service is still starting.');
    return ready;
  };

  const projectsOf = async (s: Signed) => reachableProjects(catalog, s.principal);
  const pickProject = async (s: Signed, requested: string | null): Promise<{ project: Project; projects: Project[] }> => {
    const projects = await projectsOf(s);
    const org = (await catalog.organizations()).find((o) => o.id === s.principal.orgId);
    const project = projects.find((p) => p.id === requested) ?? projects.find((p) => p.id === org?.default_project_id) ?? projects[0];
    if (!project) throw new PageError(404, 'There is no project yet.');
    return { project, projects };
  };

  return {
    ...options,
    secure: appUrl.startsWith('https:'),
    signedIn,
    view,
    action,
    need,
    projectsOf,
    pickProject,
    html,
    redirect,
    fail: (status, message) => {
      throw new PageError(status, message);
    },
  };
}
