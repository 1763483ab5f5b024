// vitest global setup: builds the fixture app once per run (test/support/app-builds.ts) into a
// temporary directory, hands the paths to the test files, and removes it afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { makeAppBuilds } from './app-builds.js';

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-app-builds-'));
  project.provide('appBuilds', await makeAppBuilds(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}
