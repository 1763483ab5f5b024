// The web app, served by the service's HTTP host on its port, outside /v1: sign-in and sign-out,
// the issues list, the issue page behind every permalink, the trace waterfall, the replay player,
// projects, alert rules, source maps and the admins' users page (users.ts). Pages are Preact
// components rendered on the server (every value escaped); the session lives in the catalog, the
// cookie holds only its random token; every form body is read under form.ts's cap, and every POST
// carries the session's CSRF token and must come from this origin. Sign-in follows
// signin-policy.ts. /v1 never looks at the session: it keeps its bearer keys.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { H3Event } from 'h3';
import type { Logger } from 'pino';
import { dsnOf, primaryDsn } from '../api/projects.js';
import { parseQuery } from '../api/query-syntax.js';
import { packageRoot } from '../paths.js';
import { reachableProjects } from '../auth/scope.js';
import type { Dataset } from '../engine/item.js';
import type { HttpHost, PageHandler } from '../http/host.js';
import type { ErrorEvent } from '../records/event.js';
import type { Alerts } from '../storage/alerts.js';
import type { ArtifactStore } from '../storage/artifacts.js';
import { CatalogError, type Catalog, type Project } from '../storage/catalog.js';
import type { Database } from '../storage/database.js';
import { SETTABLE_STATUSES, type IssueStatus } from '../storage/issues.js';
import type { Storage } from '../storage/storage.js';
import { hashPassword, needsRehash, verifyPassword, type Users } from '../storage/users.js';
import { faviconIco } from './favicon.js';
import { chartWindow, ISSUE_SORTS, InvalidWebCursorError, WebData, type IssueSort } from './data.js';
import { ProjectsPage } from './pages/admin.js';
import { IssuePage } from './pages/issue.js';
import { IssuesPage } from './pages/issues.js';
import { ErrorPage, SignInPage, type Viewer } from './pages/layout.js';
import { ReplayPage } from './pages/replay.js';
import { TracePage, type TraceEventLink, type TraceRecord } from './pages/trace.js';
import type { ReplaySource } from './replays.js';
import type { PageKit, Signed } from './kit.js';
import { renderToString, type Child } from './jsx.js';
import { cookie, CSP, newToken, parseCookies, REPLAY_CSP, sameOrigin, sameToken, securityHeaders, SESSION_COOKIE, SIGNIN_CSRF_COOKIE } from './security.js';
import { FORM_REFUSAL_HEADERS, readForm } from './form.js';
import { clientAddress, safeNext, SignInLimiter } from './signin-policy.js';
import { mountUserRoutes } from './users.js';
import { registerPageGroups } from './routes/index.js';
import { userActor } from './routes/triage.js';

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

export interface WebApp {
  /** The issue page, for the permalink route (a browser without a key). */
  issuePage: PageHandler;
  /** Mounts the pages; the read side exists once the pipelines started. */
  mount(http: HttpHost, storage: Storage): void;
}

class PageError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const ASSETS: Record<string, string> = { 'app.css': 'text/css', 'replay.js': 'text/javascript', 'rrweb-player.css': 'text/css' };

/** Built by scripts/build-web.mjs at install time. */
const ASSETS_DIR = join(packageRoot, 'dist', 'web', 'assets');

function html(vnode: Child, status = 200, headers: Record<string, string> = {}, csp = CSP): Response {
  return new Response(`<!doctype html>${renderToString(vnode)}`, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...securityHeaders(csp), ...headers },
  });
}

function redirect(location: string, headers: Record<string, string> | Array<[string, string]> = {}): Response {
  const h = new Headers(headers as Record<string, string>);
  h.set('location', location);
  h.set('cache-control', 'no-store');
  return new Response(null, { status: 303, headers: h });
}

export function createWebApp(options: WebAppOptions): WebApp {
  const { catalog, users, appUrl } = options;
  const secure = appUrl.startsWith('https:');
  const limiter = new SignInLimiter();
  // Unknown accounts are checked against this, so they take as long to refuse as known ones.
  const dummyHash = hashPassword(newToken());
  dummyHash.catch(() => undefined);
  let storage: Storage | undefined;
  let data: WebData | undefined;

  const ownOrigins = (event: H3Event) => {
    const origins = [new URL(appUrl).origin];
    const host = event.req.headers.get('host');
    if (host) origins.push(`${event.url.protocol}//${host}`);
    return origins;
  };

  const signedIn = async (event: H3Event): Promise<Signed | undefined> => {
    const token = parseCookies(event.req.headers.get('cookie'))[SESSION_COOKIE];
    if (!token) return undefined;
    const session = await users.session(token);
    if (!session) return undefined;
    const here = event.url.pathname + event.url.search;
    return {
      session,
      token,
      viewer: { user: session.user, dataset: session.dataset, csrf: session.csrf, here },
      principal: { keyId: `user:${session.user.id}`, orgId: session.user.org_id, projectId: null, dataset: session.dataset },
    };
  };

  const toSignIn = (event: H3Event) => redirect(`/signin?next=${encodeURIComponent(event.url.pathname + event.url.search)}`);

  const failure = (error: unknown, viewer?: Viewer): Response => {
    if (error instanceof PageError) return html(ErrorPage({ status: error.status, message: error.message, viewer }), error.status);
    options.logger.error({ err: error }, 'a web page failed');
    return html(ErrorPage({ status: 500, message: 'The page could not be built; the service log says why.', viewer }), 500);
  };

  /** A GET page for a signed-in user. */
  const view =
    (build: (event: H3Event, s: Signed) => Promise<Response>): PageHandler =>
    async (event) => {
      const s = await signedIn(event).catch(() => undefined);
      if (!s) return toSignIn(event);
      try {
        return await build(event, s);
      } catch (error) {
        return failure(error, s.viewer);
      }
    };

  /** A state-changing POST: a session, this origin, and the session's CSRF token in the form. */
  const action =
    (act: (event: H3Event, s: Signed, form: FormData) => Promise<Response>, role?: 'admin'): PageHandler =>
    async (event) => {
      const s = await signedIn(event).catch(() => undefined);
      if (!s) return html(ErrorPage({ status: 403, message: 'Sign in first: this form needs a session.' }), 403);
      if (!sameOrigin(event.req.headers, ownOrigins(event))) return failure(new PageError(403, 'This form was posted from another site.'), s.viewer);
      const read = await readForm(event, options.web.max_form_bytes);
      if ('refused' in read) return formRefused(read.refused, s.viewer);
      const form = read.fields;
      if (!sameToken(String(form.get('_csrf') ?? ''), s.session.csrf))
        return failure(new PageError(403, 'The form was stale or not from this site (its CSRF token did not match). Reload the page and try again.'), s.viewer);
      if (role === 'admin' && s.session.user.role !== 'admin') return failure(new PageError(403, 'Only admins can do this.'), s.viewer);
      try {
        return await act(event, s, form);
      } catch (error) {
        return failure(error, s.viewer);
      }
    };

  /** A form body refused before it was read (too large, too slow, not a form): an HTML page with the status. */
  const formRefused = (refused: { status: number; message: string }, viewer?: Viewer): Response =>
    html(ErrorPage({ status: refused.status, message: `The form was refused: ${refused.message}.`, viewer }), refused.status, { ...FORM_REFUSAL_HEADERS });

  const need = () => {
    if (!storage || !data) throw new PageError(503, 'The service is still starting.');
    return { storage, data };
  };

  const projectsOf = async (s: Signed) => reachableProjects(catalog, s.principal);
  const pickProject = async (s: Signed, requested: string | null): Promise<{ project: Project; projects: Project[] }> => {
    const projects = await projectsOf(s);
    const org = (await catalog.organizations()).find((o) => o.id === s.principal.orgId);
    const project = projects.find((p) => p.id === requested) ?? projects.find((p) => p.id === org?.default_project_id) ?? projects[0];
    if (!project) throw new PageError(404, 'There is no project yet.');
    return { project, projects };
  };

  const kit: PageKit = {
    ...options,
    view,
    action,
    need,
    projectsOf,
    pickProject,
    html: (vnode, status, headers) => html(vnode, status, headers),
    redirect: (location) => redirect(location),
    fail: (status, message) => {
      throw new PageError(status, message);
    },
  };

  const issuePage = view(async (event, s) => {
    const { storage, data } = need();
    const id = decodeURIComponent(event.context.params?.id ?? '');
    const projectIds = (await projectsOf(s)).map((p) => p.id);
    const issue = await storage.issues.get(s.session.dataset, projectIds, id);
    const mergedInto = issue ? undefined : storage.triage.redirects.mergedInto(s.session.dataset, projectIds, id);
    if (mergedInto) return redirect(`/issues/${encodeURIComponent(mergedInto.issueId)}${event.url.search}`); // a merged issue's permalink
    if (!issue) {
      const other: Dataset = s.session.dataset === 'live' ? 'test' : 'live';
      const elsewhere = await storage.issues.get(other, projectIds, id);
      throw new PageError(
        404,
        elsewhere ? `This issue is in the ${other === 'test' ? 'sandbox' : 'live'} data: switch in the header to see it.` : `No issue ${id}.`,
      );
    }
    const q = event.url.searchParams;
    const now = Date.now();
    // An issue not seen for a day opens on its 30 days, where its events are.
    const range = (q.get('range') ?? (now - Date.parse(issue.last_seen) > 86_400_000 ? '30d' : '24h')) === '30d' ? '30d' : '24h';
    const wanted = q.get('event') ?? undefined;
    const unit = range === '24h' ? 'hour' : 'day';
    const buckets = range === '24h' ? 24 : 30;
    const { size, start, end } = chartWindow(unit, buckets, now);
    const [timeline, tags] = await Promise.all([
      data.issueTimeline(s.session.dataset, issue, { unit, buckets, now }, wanted),
      data.tagDistribution(s.session.dataset, issue.project_id, issue.id, start),
    ]);
    if (wanted && !timeline.event) throw new PageError(404, `Event ${wanted} is not an event of this issue.`);
    const doc = timeline.event ? await storage.events.get(s.session.dataset, [issue.project_id], timeline.event) : undefined;
    const event_ = doc ? (JSON.parse(doc) as ErrorEvent) : undefined;
    const labels = Array.from({ length: buckets }, (_, i) => {
      const t = new Date(end - (buckets - i) * size).toISOString();
      return unit === 'hour' ? `${t.slice(11, 16)} UTC` : t.slice(0, 10);
    });
    const notice = q.get('changed') ? `Status set to ${issue.status}.` : undefined;
    return html(
      IssuePage({
        viewer: s.viewer,
        issue,
        event: event_,
        neighbours: { older: timeline.older, newer: timeline.newer },
        range,
        counts: timeline.counts,
        labels,
        tags,
        raw: q.get('view') === 'raw',
        notice,
      }),
    );
  });

  const mount = (http: HttpHost, readSide: Storage) => {
    storage = readSide;
    data = new WebData(options.database, readSide);

    registerPageGroups(http, kit);

    http.page('GET', '/', async (event) => ((await signedIn(event).catch(() => undefined)) ? redirect('/issues') : redirect('/signin')));

    const favicon = faviconIco();
    http.page(
      'GET',
      '/favicon.ico',
      () =>
        new Response(favicon, { headers: { 'content-type': 'image/x-icon', 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' } }),
    );

    http.page('GET', '/assets/:name', (event) => {
      const name = event.context.params?.name ?? '';
      const type = ASSETS[name];
      if (!type) return new Response('not found', { status: 404, headers: { 'content-type': 'text/plain' } });
      try {
        return new Response(readFileSync(join(ASSETS_DIR, name)), {
          headers: { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' },
        });
      } catch {
        return new Response('asset not built: run npm run prepare', { status: 404, headers: { 'content-type': 'text/plain' } });
      }
    });

    http.page('GET', '/signin', async (event) => {
      const next = safeNext(event.url.searchParams.get('next'));
      if (await signedIn(event).catch(() => undefined)) return redirect(next);
      const csrf = newToken();
      return html(SignInPage({ csrf, next }), 200, { 'set-cookie': cookie(SIGNIN_CSRF_COOKIE, csrf, { secure, maxAge: 3600 }) });
    });

    http.page('POST', '/signin', async (event) => {
      const read = await readForm(event, options.web.max_form_bytes);
      if ('refused' in read) return formRefused(read.refused);
      const form = read.fields;
      const next = safeNext(String(form.get('next') ?? ''));
      const email = String(form.get('email') ?? '')
        .trim()
        .toLowerCase()
        .slice(0, 320);
      const again = (status: number, error: string, headers: Record<string, string> = {}) => {
        const csrf = newToken();
        return html(SignInPage({ csrf, next, error, email }), status, { ...headers, 'set-cookie': cookie(SIGNIN_CSRF_COOKIE, csrf, { secure, maxAge: 3600 }) });
      };
      const cookieToken = parseCookies(event.req.headers.get('cookie'))[SIGNIN_CSRF_COOKIE];
      if (!sameOrigin(event.req.headers, ownOrigins(event)) || !sameToken(String(form.get('_csrf') ?? ''), cookieToken))
        return again(403, 'The sign-in form was stale or not from this site. Try again.');
      const address = clientAddress(event, options.web.trust_proxy);
      // Counted before anything is awaited: parallel guesses cannot all pass the check first.
      const startedAt = Date.now();
      const wait = limiter.begin(email, address, startedAt);
      if (wait > 0) return again(429, `Too many failed sign-ins. Try again in ${Math.ceil(wait / 60)} minutes.`, { 'retry-after': String(wait) });
      const password = String(form.get('password') ?? '');
      const user = email ? await users.byEmail(email) : undefined;
      const ok = await verifyPassword(password, user?.password_hash ?? (await dummyHash));
      if (!user || !ok) return again(401, 'The email or the password is wrong.');
      limiter.succeeded(email, address, startedAt);
      if (needsRehash(user.password_hash)) await users.rehash(user.id, await hashPassword(password));
      const { token, expires } = await users.startSession(user.id);
      return redirect(next, [
        ['set-cookie', cookie(SESSION_COOKIE, token, { secure, expires })],
        ['set-cookie', cookie(SIGNIN_CSRF_COOKIE, '', { secure, maxAge: 0 })],
      ]);
    });

    http.page(
      'POST',
      '/signout',
      action(async (_event, s) => {
        await users.endSession(s.token);
        return redirect('/signin', { 'set-cookie': cookie(SESSION_COOKIE, '', { secure, maxAge: 0 }) });
      }),
    );

    http.page(
      'POST',
      '/dataset',
      action(async (_event, s, form) => {
        const dataset: Dataset = form.get('dataset') === 'test' ? 'test' : 'live';
        await users.setDataset(s.token, dataset);
        const next = safeNext(String(form.get('next') ?? ''));
        return redirect(next.startsWith('/issues/') ? '/issues' : next); // an issue id belongs to one dataset
      }),
    );

    mountUserRoutes(http, {
      users,
      appUrl,
      secure,
      maxFormBytes: options.web.max_form_bytes,
      view,
      action,
      html: (vnode, status, headers) => html(vnode, status, headers),
      redirect: (location, headers) => redirect(location, headers),
      errorPage: (status, message) => html(ErrorPage({ status, message }), status),
      pageError: (status, message) => new PageError(status, message),
      formRefused: (refused) => formRefused(refused),
      ownOrigins,
    });

    http.page(
      'GET',
      '/issues',
      view(async (event, s) => {
        const { data } = need();
        const q = event.url.searchParams;
        const { project, projects } = await pickProject(s, q.get('project'));
        const statusParam = q.get('status');
        const status = statusParam === null ? 'unresolved' : statusParam;
        const validStatus = ['', 'unresolved', 'resolved', 'ignored', 'regressed'].includes(status) ? status : 'unresolved';
        const sortParam = q.get('sort') ?? 'last_seen';
        const sort: IssueSort = (ISSUE_SORTS as readonly string[]).includes(sortParam) ? (sortParam as IssueSort) : 'last_seen';
        const filters = {
          status: validStatus,
          environment: q.get('environment') ?? '',
          release: q.get('release') ?? '',
          level: q.get('level') ?? '',
          query: q.get('query') ?? '',
          sort,
        };
        let error: string | undefined;
        let page: { issues: Awaited<ReturnType<WebData['listIssues']>>['issues']; nextCursor: string | null } = { issues: [], nextCursor: null };
        try {
          page = await data.listIssues({
            dataset: s.session.dataset,
            projectId: project.id,
            status: (filters.status || undefined) as IssueStatus | undefined,
            environment: filters.environment || undefined,
            release: filters.release || undefined,
            level: filters.level || undefined,
            search: parseQuery(filters.query),
            sort,
            cursor: q.get('cursor') || undefined,
            limit: 25,
          });
        } catch (e) {
          if (!(e instanceof InvalidWebCursorError)) throw e;
          error = e.message;
        }
        const now = Date.now();
        const sparkWindow = chartWindow('hour', 24, now);
        const [sparklines, facets] = await Promise.all([
          data.counts(
            s.session.dataset,
            project.id,
            page.issues.map((i) => i.id),
            'hour',
            24,
            now,
          ),
          data.facets(s.session.dataset, project.id),
        ]);
        return html(
          IssuesPage({
            viewer: s.viewer,
            projects,
            project,
            filters,
            facets,
            issues: page.issues,
            sparklines,
            sparkWindow,
            nextCursor: page.nextCursor,
            appUrl,
            error,
          }),
        );
      }),
    );

    // The permalink's GET is the API's route (it answers JSON to a key); a browser gets issuePage.
    http.page(
      'POST',
      '/issues/:id/status',
      action(async (event, s, form) => {
        const { storage } = need();
        const status = String(form.get('status') ?? '');
        if (!(SETTABLE_STATUSES as readonly string[]).includes(status)) throw new PageError(400, `A status is one of ${SETTABLE_STATUSES.join(', ')}.`);
        const id = decodeURIComponent(event.context.params?.id ?? '');
        const projectIds = (await projectsOf(s)).map((p) => p.id);
        const before = await storage.issues.get(s.session.dataset, projectIds, id);
        const updated = before && (await storage.issues.setStatus(s.session.dataset, projectIds, id, status as (typeof SETTABLE_STATUSES)[number]));
        if (!updated) throw new PageError(404, `No issue ${id}.`);
        await storage.triage.recordChanges(s.session.dataset, before, updated, userActor(s));
        return redirect(`/issues/${encodeURIComponent(id)}?changed=1`);
      }),
    );

    http.page(
      'GET',
      '/events/:id',
      view(async (event, s) => {
        const { storage } = need();
        const projectIds = (await projectsOf(s)).map((p) => p.id);
        const id = decodeURIComponent(event.context.params?.id ?? '').toLowerCase();
        const doc = await storage.events.get(s.session.dataset, projectIds, id);
        if (!doc) throw new PageError(404, `No event ${id}.`);
        const found = JSON.parse(doc) as ErrorEvent;
        return redirect(`/issues/${encodeURIComponent(found.issue_id ?? '')}?event=${encodeURIComponent(found.id)}`);
      }),
    );

    http.page(
      'GET',
      '/traces/:id',
      view(async (event, s) => {
        const { storage } = need();
        if (!storage.reads('traces')) throw new PageError(404, 'No exporter of this service stores traces.');
        const projectIds = (await projectsOf(s)).map((p) => p.id);
        const raw = decodeURIComponent(event.context.params?.id ?? '');
        const id = /^[0-9a-fA-F]+$/.test(raw) ? raw.toLowerCase() : raw;
        const doc = await storage.traces.get(s.session.dataset, projectIds, id, { offset: 0, limit: 2000 });
        if (!doc) throw new PageError(404, `No trace ${id}.`);
        const trace = JSON.parse(doc) as TraceRecord;
        const events = new Map<string, TraceEventLink>();
        for (const eventId of trace.error_event_ids.slice(0, 50)) {
          const found = await storage.events.get(s.session.dataset, projectIds, eventId);
          if (!found) continue;
          const event = JSON.parse(found) as ErrorEvent;
          events.set(eventId, { issueId: event.issue_id, title: event.title ?? `${event.exception.type}: ${event.exception.value}` });
        }
        return html(TracePage({ viewer: s.viewer, trace, events }));
      }),
    );

    http.page(
      'GET',
      '/replays/:id',
      view(async (event, s) => {
        const id = decodeURIComponent(event.context.params?.id ?? '');
        if (!options.replays) return html(ReplayPage({ viewer: s.viewer, replayId: id, reason: 'this service has no replay store.' }));
        const projectIds = (await projectsOf(s)).map((p) => p.id);
        const replay = await options.replays.get(s.session.dataset, projectIds, id);
        if (!replay) return html(ReplayPage({ viewer: s.viewer, replayId: id, reason: 'no replay with this id was stored.' }), 404);
        return html(ReplayPage({ viewer: s.viewer, replayId: id, replay }), 200, {}, REPLAY_CSP);
      }),
    );

    http.page('GET', '/replays/:id/segments/:n', async (event) => {
      const s = await signedIn(event).catch(() => undefined);
      const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' };
      if (!s) return new Response('{"error":"sign in"}', { status: 401, headers });
      const n = Number(event.context.params?.n);
      if (!options.replays || !Number.isInteger(n) || n < 0) return new Response('[]', { status: 404, headers });
      const projectIds = (await projectsOf(s)).map((p) => p.id);
      const events = await options.replays.segment(s.session.dataset, projectIds, decodeURIComponent(event.context.params?.id ?? ''), n);
      return new Response(JSON.stringify(events ?? []), { status: events ? 200 : 404, headers });
    });

    const projectsPage = async (s: Signed, created?: { id: string; secret: string }) => {
      const projects = await projectsOf(s);
      const keys = await catalog.listKeys();
      return html(
        ProjectsPage({
          viewer: s.viewer,
          appUrl,
          created,
          projects: projects.map((project) => {
            const own = keys.filter((k) => k.project_id === project.id);
            return {
              project,
              dsn: primaryDsn(own, project, appUrl, s.session.dataset),
              keys: own.map((key) => ({ key, dsn: key.kind === 'dsn' && key.public_key ? dsnOf(key.public_key, project, appUrl) : undefined })),
            };
          }),
        }),
      );
    };

    http.page(
      'GET',
      '/projects',
      view((_event, s) => projectsPage(s)),
    );

    http.page(
      'POST',
      '/projects/keys',
      action(async (_event, s, form) => {
        const projectId = String(form.get('project') ?? '');
        if (!(await projectsOf(s)).some((p) => p.id === projectId)) throw new PageError(404, `No project ${projectId}.`);
        const name = String(form.get('name') ?? '').trim();
        const dsn = form.get('kind') === 'dsn';
        const created = await catalog.createKey({ dataset: form.get('dataset') === 'test' ? 'test' : 'live', projectId, name: name || undefined, dsn });
        // A DSN key's secret is never used by SDKs (they send the public key): the page lists its DSN instead.
        return dsn ? redirect('/projects') : projectsPage(s, { id: created.key.id, secret: created.secret });
      }, 'admin'),
    );

    http.page(
      'POST',
      '/projects',
      action(async (_event, s, form) => {
        try {
          await catalog.createProject({
            id: String(form.get('id') ?? '').trim(),
            name: String(form.get('name') ?? ''),
            platform: String(form.get('platform') ?? '').trim() || undefined,
            orgId: s.principal.orgId,
          });
        } catch (error) {
          if (error instanceof CatalogError) throw new PageError(error.code === 'conflict' ? 409 : 400, error.message);
          throw error;
        }
        return redirect('/projects');
      }, 'admin'),
    );
  };

  return { issuePage, mount };
}
