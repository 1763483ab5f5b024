// Builds the web app's static assets into dist/web/assets (run by `npm run prepare` at install time
// and before the tests): the stylesheet, and the replay player bundled with rrweb-player. The
// browser fetches nothing from anywhere else.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web', 'assets');
mkdirSync(out, { recursive: true });
copyFileSync(join(root, 'frontends', 'web', 'assets', 'app.css'), join(out, 'app.css'));
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.warn('esbuild is not installed (a production install): the replay player is not rebuilt');
  process.exit(0);
}
await esbuild.build({
  entryPoints: [join(root, 'frontends', 'web', 'client', 'replay.js')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  outfile: join(out, 'replay.js'),
  logLevel: 'warning',
});
copyFileSync(join(root, 'node_modules', 'rrweb-player', 'dist', 'style.css'), join(out, 'rrweb-player.css'));
