// Every component's README carries the config table its schema produces (npm run docs:components
// writes them), and `faultline components` describes every registered component.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { componentReadmes, componentsText, configKeys, configTable, describeComponent, withConfigTable } from '../../src/cli/component-docs.js';
import { defaultRegistry } from '../../src/components.js';

describe('component READMEs', () => {
  it.each(componentReadmes(defaultRegistry().list()).map((r) => [r.path, r] as const))('%s has the config table of its schema', (_path, readme) => {
    // On failure: run `npm run docs:components` and commit the READMEs.
    expect(readme.current).toBe(readme.expected);
  });

  it('every registered component has a README with the table markers, and every key a description', () => {
    for (const factory of defaultRegistry().list()) {
      const description = describeComponent(factory);
      expect(description.readme).toMatch(/^(receivers|processors|exporters|connectors)\/[a-z-]+\/README\.md$/);
      for (const key of description.config) expect(key.description, `${factory.type}: ${key.key}`).not.toBe('');
    }
    expect(() => withConfigTable('# x\nno markers\n', '')).toThrow(/markers/);
  });

  it('renders types, ranges, defaults and nested keys from a zod schema', () => {
    const schema = z
      .object({
        size: z.number().int().positive().default(10).describe('How big'),
        ratio: z.number().min(0).max(1).optional().describe('A | share'),
        mode: z.enum(['fast', 'safe']).default('safe').describe('Which'),
        nested: z.object({ on: z.boolean().default(true).describe('Switch') }).prefault({}),
      })
      .strict();
    expect(configKeys(schema)).toEqual([
      { key: 'size', type: 'integer ≥ 1', default: '10', description: 'How big' },
      { key: 'ratio', type: 'number 0–1', description: 'A | share' },
      { key: 'mode', type: 'one of "fast", "safe"', default: '"safe"', description: 'Which' },
      { key: 'nested.on', type: 'boolean', default: 'true', description: 'Switch' },
    ]);
    expect(configTable(configKeys(schema)).split('\n').slice(1)).toEqual([
      '| Key | Type | Default | Description |',
      '|---|---|---|---|',
      '| `size` | integer ≥ 1 | `10` | How big |',
      '| `ratio` | number 0–1 | — | A \\| share |',
      '| `mode` | one of "fast", "safe" | `"safe"` | Which |',
      '| `nested.on` | boolean | `true` | Switch |',
    ]);
  });
});

describe('faultline components', () => {
  it('describes each component: kind, signals with stability, contracts, config', () => {
    const all = defaultRegistry().list().map(describeComponent);
    const byType = Object.fromEntries(all.map((c) => [c.type, c]));
    expect(byType.duckdb).toMatchObject({
      kind: 'exporter',
      signals: { events: 'beta', traces: 'beta', replays: 'alpha' },
      singleton: true,
      requires: { events: ['validated', 'issue_id'], traces: ['validated'], replays: ['validated'] },
      reads: ['events', 'traces', 'replays'],
      config: [
        expect.objectContaining({ key: 'max_batch_items', type: 'integer ≥ 1', default: '5000' }),
        expect.objectContaining({ key: 'max_backlog_bytes', default: '16777216' }),
        expect.objectContaining({ key: 'span_documents', type: 'one of "batch", "per_span"', default: '"batch"' }),
        expect.objectContaining({ key: 'durability.linger_ms', type: 'integer 0–100', default: '2' }),
      ],
    });
    expect(byType.parquet).toMatchObject({ singleton: false, reads: ['events', 'traces', 'replays'] });
    expect(byType.otlp).toMatchObject({ kind: 'receiver', signals: { traces: 'beta' } });
    expect(byType.exceptions).toMatchObject({ kind: 'connector', from: 'traces', to: 'events', requires: { traces: ['validated'] } });
    const text = componentsText(all);
    expect(text).toMatch(/^KIND\s+TYPE\s+SIGNALS\s+SINGLETON\s+REQUIRES\s+PROVIDES\s+BEFORE\s+READS$/m);
    expect(text).toMatch(
      /^exporter\s+duckdb\s+events \(beta\), traces \(beta\), replays \(alpha\)\s+yes\s+events: validated, issue_id; traces: validated; replays: validated\s+-\s+-\s+events, traces, replays$/m,
    );
    expect(text).toMatch(/^connector\s+exceptions\s+traces -> events \(alpha\)/m);
    expect(text).toMatch(/^ {2}flush\.max_rows\s+integer ≥ 1\s+50000\s+Flush a signal/m);
  });
});
