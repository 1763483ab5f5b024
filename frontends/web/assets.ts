// The web app's static files: the favicon, and the stylesheet and replay player that
// scripts/build-web.mjs builds into dist/web/assets at install time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpHost } from '../../src/http/host.js';
import { packageRoot } from '../../src/paths.js';
import { faviconIco } from './favicon.js';

const ASSETS: Record<string, string> = { 'app.css': 'text/css', 'replay.js': 'text/javascript', 'rrweb-player.css': 'text/css' };

const ASSETS_DIR = join(packageRoot, 'dist', 'web', 'assets');

export function registerAssets(http: HttpHost): void {
  const favicon = faviconIco();
  http.page(
    'GET',
    '/favicon.ico',
    () => new Response(favicon, { headers: { 'content-type': 'image/x-icon', 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' } }),
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
}
