// GET /monitors and GET /monitors/{slug}: the monitors receiver's monitors, read from its tables.
import type { HttpHost } from '../../../src/http/host.js';
import { MonitorStore } from '../../../src/storage/monitors.js';
import type { PageKit } from '../kit.js';
import { MonitorPage, MonitorsPage } from '../pages/monitors.js';

const DAY = 86_400_000;

export function registerMonitorPages(http: HttpHost, kit: PageKit): void {
  http.page(
    'GET',
    '/monitors',
    kit.view(async (event, s) => {
      const { project, projects } = await kit.pickProject(s, event.url.searchParams.get('project'));
      const store = await MonitorStore.readOnly(kit.database);
      const monitors = store?.list({ dataset: s.session.dataset, projectId: project.id }, 1000).monitors;
      const since = Date.now() - DAY;
      const rows =
        monitors &&
        (await Promise.all(
          monitors.map(async (monitor) => ({ monitor, uptime24h: monitor.uptime ? (await store!.uptimeSince(monitor, since)).uptime : null })),
        ));
      return kit.html(MonitorsPage({ viewer: s.viewer, projects: projects.map((p) => p.id), project: project.id, rows }));
    }),
  );

  http.page(
    'GET',
    '/monitors/:slug',
    kit.view(async (event, s) => {
      const { project } = await kit.pickProject(s, event.url.searchParams.get('project'));
      const slug = event.context.params?.slug ?? '';
      const store = await MonitorStore.readOnly(kit.database);
      const monitor = store?.get(s.session.dataset, project.id, slug);
      if (!store || !monitor) kit.fail(404, `No monitor ${slug} in project ${project.id}.`);
      const now = Date.now();
      const [checkins, checks, day, month] = await Promise.all([
        monitor.cron ? store.checkins(monitor, 50).then((page) => page.checkins) : Promise.resolve([]),
        monitor.uptime ? store.checks(monitor, 60) : Promise.resolve([]),
        store.uptimeSince(monitor, now - DAY),
        store.uptimeSince(monitor, now - 30 * DAY),
      ]);
      return kit.html(MonitorPage({ viewer: s.viewer, monitor, checkins, checks, uptime24h: day.uptime, uptime30d: month.uptime }));
    }),
  );
}
