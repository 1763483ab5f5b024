// The web app's page groups, each registered with one call.
import type { HttpHost } from '../../../src/http/host.js';
import type { PageKit } from '../kit.js';
import { registerAlertPages } from './alerts.js';
import { registerIssuePages } from './issues.js';
import { registerIssueIgnorePages } from './issue-ignore.js';
import { registerKeyPages } from './keys.js';
import { registerListPages } from './lists.js';
import { registerMonitorPages } from './monitors.js';
import { registerProjectPages } from './projects.js';
import { registerReleasePages } from './releases.js';
import { registerReplayPage } from './replay.js';
import { registerSignInPages } from './signin.js';
import { registerSourcemapPages } from './sourcemaps.js';
import { registerTracePage } from './trace.js';
import { registerUserPages } from './users.js';
import { registerTriagePages } from './triage.js';
import { registerIssueTriagePages } from './issue-triage.js';

export function registerPageGroups(http: HttpHost, kit: PageKit): void {
  registerListPages(http, kit);
  registerReleasePages(http, kit);
  registerAlertPages(http, kit);
  registerSourcemapPages(http, kit);
  registerKeyPages(http, kit);
  registerMonitorPages(http, kit);
  registerSignInPages(http, kit);
  registerUserPages(http, kit);
  registerIssuePages(http, kit);
  registerTracePage(http, kit);
  registerReplayPage(http, kit);
  registerProjectPages(http, kit);
  registerIssueIgnorePages(http, kit);
  registerTriagePages(http, kit);
  registerIssueTriagePages(http, kit);
}
