import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { groupingRulesSchema, matchFingerprintRules, applyStacktraceRules } from '../../../processors/grouping/rules/index.js';
import { configKeys } from '../../../src/cli/component-docs.js';
import { parseConfigText } from '../../../src/config/load.js';
import { packageRoot } from '../../../src/paths.js';

/** The grouping section as the processor will have it: other keys, and rules under `rules`. */
const section = z.object({ max_frames: z.number().optional(), rules: groupingRulesSchema }).strict();

describe('groupingRulesSchema', () => {
  it('defaults to no rules', () => {
    expect(groupingRulesSchema.parse(undefined)).toEqual({ stacktrace: [], fingerprint: [] });
    expect(groupingRulesSchema.parse({})).toEqual({ stacktrace: [], fingerprint: [] });
    expect(section.parse({}).rules).toEqual({ stacktrace: [], fingerprint: [] });
  });

  it('parses each rule, skipping comment and blank entries', () => {
    const rules = groupingRulesSchema.parse({
      stacktrace: ['# dependencies', 'path:**/node_modules/** -app', '', 'function:log* -group'],
      fingerprint: ['type:DatabaseError -> db'],
    });
    expect(rules.stacktrace.map((r) => r.text)).toEqual(['path:**/node_modules/** -app', 'function:log* -group']);
    expect(rules.fingerprint.map((r) => r.fingerprint)).toEqual([['db']]);
    const verdicts = applyStacktraceRules(rules.stacktrace, [
      { family: 'javascript', function: 'logError', abs_path: '/app/node_modules/x/log.js', in_app: true },
    ]);
    expect(verdicts).toEqual([{ in_app: false, group: false }]);
  });

  it('reports a bad rule at its list index, with the column and the problem', () => {
    const result = section.safeParse({
      rules: { stacktrace: ['path:**/vendor/** -app', '# fine', 'fuction:x -app'], fingerprint: ['type:X -> {{ nope }}'] },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => ({ path: issue.path, message: issue.message }))).toEqual([
      {
        path: ['rules', 'stacktrace', 2],
        message:
          'column 1: unknown matcher "fuction" (known: family, function, module, path, package, app, stack.function, stack.module, stack.abs_path, stack.package)',
      },
      {
        path: ['rules', 'fingerprint', 0],
        message: 'column 11: unknown variable "{{ nope }}" (known: {{ default }}, {{ type }}, {{ function }}, {{ module }}, {{ level }}, {{ tags.<name> }})',
      },
    ]);
  });

  it('rejects unknown keys and entries that are not strings', () => {
    const unknown = groupingRulesSchema.safeParse({ stacktrace: [], fingerprints: [] });
    expect(unknown.error?.issues.map((issue) => [issue.code, issue.path])).toEqual([['unrecognized_keys', []]]);
    const notString = groupingRulesSchema.safeParse({ stacktrace: ['function:a -app', 3] });
    expect(notString.error?.issues.map((issue) => issue.path)).toEqual([['stacktrace', 1]]);
  });

  it('works from YAML, where the error path leads to the rule’s line', () => {
    const source = parseConfigText(
      [
        'processors:',
        '  grouping:',
        '    rules:',
        '      stacktrace:',
        "        - 'family:javascript path:**/node_modules/** -app'",
        "        - '!app:yes function:log* -group'",
        "        - 'family:rust function:x -group'",
        '      fingerprint:',
        '        - \'message:"*timed out*" -> timeouts, {{ default }}\'',
      ].join('\n'),
      'test.yaml',
    );
    expect(source.errors).toEqual([]);
    const raw = source.raw as { processors: { grouping: unknown } };
    const result = section.safeParse(raw.processors.grouping);
    const issue = result.error?.issues[0];
    expect(issue?.path).toEqual(['rules', 'stacktrace', 2]);
    expect(issue?.message).toBe('column 8: family: unknown family "rust" (known: javascript, native, jvm, python, go, other, all)');
    expect(source.lineOf('processors.grouping.rules.stacktrace[2]')).toBe(7);

    const fixed = section.parse({ rules: { ...(raw.processors.grouping as { rules: object }).rules, stacktrace: [] } });
    const match = matchFingerprintRules(fixed.rules.fingerprint, { exceptions: [{ type: 'Error', value: 'Request timed out' }], frames: [] });
    expect(match?.fingerprint).toEqual(['timeouts', '{{ default }}']);
  });

  it('documents its keys with a default for the generated config table', () => {
    expect(configKeys(z.object({ rules: groupingRulesSchema }))).toEqual([
      { key: 'rules.stacktrace', type: 'list of string', default: '[]', description: expect.stringContaining('Stack-trace rules') as string },
      { key: 'rules.fingerprint', type: 'list of string', default: '[]', description: expect.stringContaining('Fingerprint rules') as string },
    ]);
  });
});

describe('the README', () => {
  const readme = readFileSync(join(packageRoot, 'processors/grouping/rules/README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parseYaml(m[1]) as unknown);

  it('has YAML examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
  });

  it('has only rules that parse', () => {
    let count = 0;
    for (const block of blocks) {
      let rules: unknown = block;
      if (Array.isArray(block)) {
        const entries = block as string[];
        rules = { stacktrace: entries.filter((e) => !e.includes('->')), fingerprint: entries.filter((e) => e.includes('->')) };
      } else if (typeof block === 'object' && block !== null && 'processors' in block) {
        rules = (block as { processors: { grouping: { rules: unknown } } }).processors.grouping.rules;
      }
      const parsed = groupingRulesSchema.safeParse(rules);
      expect(parsed.error?.issues ?? []).toEqual([]);
      count += (parsed.data?.stacktrace.length ?? 0) + (parsed.data?.fingerprint.length ?? 0);
    }
    expect(count).toBeGreaterThan(30);
  });
});
