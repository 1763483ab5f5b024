// The page groups that live outside app.ts, each registered with one call.
import type { HttpHost } from '../../http/host.js';
import type { PageKit } from '../kit.js';
import { registerAlertPages } from './alerts.js';
import { registerKeyPages } from './keys.js';
import { registerListPages } from './lists.js';
import { registerMonitorPages } from './monitors.js';
import { registerReleasePages } from './releases.js';
import { registerSourcemapPages } from './sourcemaps.js';
import { registerTriagePages } from './triage.js';

export function registerPageGroups(http: HttpHost, kit: PageKit): void {
  registerListPages(http, kit);
  registerReleasePages(http, kit);
  registerAlertPages(http, kit);
  registerSourcemapPages(http, kit);
  registerKeyPages(http, kit);
  registerMonitorPages(http, kit);
  registerTriagePages(http, kit);
}
