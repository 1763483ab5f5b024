// `npm run docs:components`: writes each component's config table into its README, between
// `<!-- config-table:start -->` and `<!-- config-table:end -->`, from the factory's config schema.
// `--check` writes nothing and exits 1 when a README is out of date (test/docs does the same).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultRegistry } from '../components.js';
import { packageRoot } from '../paths.js';
import { componentReadmes } from './component-docs.js';

function main(argv: readonly string[]): void {
  const check = argv.includes('--check');
  const stale = componentReadmes(defaultRegistry().list()).filter((r) => r.current !== r.expected);
  for (const readme of stale) {
    if (!check) writeFileSync(join(packageRoot, readme.path), readme.expected);
    process.stdout.write(`${check ? 'out of date' : 'updated'}: ${readme.path}\n`);
  }
  if (stale.length === 0) process.stdout.write('every component README is up to date\n');
  if (check && stale.length) process.exitCode = 1;
}

main(process.argv.slice(2));
