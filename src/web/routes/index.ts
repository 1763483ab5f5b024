// The page groups that live outside app.ts, each registered with one call.
import type { HttpHost } from '../../http/host.js';
import type { PageKit } from '../kit.js';
import { registerListPages } from './lists.js';
import { registerReleasePages } from './releases.js';

export function registerPageGroups(http: HttpHost, kit: PageKit): void {
  registerListPages(http, kit);
  registerReleasePages(http, kit);
}
