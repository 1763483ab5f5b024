// The config variants the bench's feature phases start the service with (bench/config-variants.ts) are
// configs the service accepts: each is written to a file and checked by `faultline validate`, the
// CLI that checks what the phases' children start from, so a change of the config's rules cannot silently break a phase.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig, groupingRulesConfig, monitorsConfig, scrubbingOffConfig, withoutProcessor, type ConfigDoc } from '../../bench/config-variants.js';
import { runCli } from '../support/process.js';

const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-configs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function validate(name: string, doc: ConfigDoc): Promise<{ code: number; output: string }> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(doc));
  const { code, stdout, stderr } = await runCli(['validate', '--config', file], { ...process.env, FAULTLINE_DATA_DIR: dir });
  return { code, output: `${stdout}${stderr}` };
}

describe('the bench feature phases start the service on configs it accepts', () => {
  it('the default config without the symbolication processor: its events pipeline skips it', async () => {
    const { code, output } = await validate('symbolication-off', withoutProcessor(defaultConfig(), 'symbolication'));
    expect(code, output).toBe(0);
    const events = output.split('\n').find((line) => line.trim().startsWith('events:'));
    expect(events).toContain('validation -> scrubbing -> grouping');
  });

  it('scrubbing turned off, grouping rules, the monitors section', async () => {
    for (const [name, doc] of [
      ['scrubbing-off', scrubbingOffConfig()],
      ['grouping-rules', groupingRulesConfig()],
      ['monitors', monitorsConfig()],
    ] as const) {
      const { code, output } = await validate(name, doc);
      expect(code, `${name}: ${output}`).toBe(0);
    }
  });

  it('taking out a processor the pipeline needs is refused (the check can fail)', async () => {
    const { code, output } = await validate('grouping-off', withoutProcessor(defaultConfig(), 'grouping'));
    expect(code).not.toBe(0);
    expect(output).toContain('issue_id');
  });
});
