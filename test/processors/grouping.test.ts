import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { testHost, type TestHost } from '../support/test-host.js';
import type { Item, Tenant } from '../../src/engine/item.js';
import type { ErrorEvent, StackFrame } from '../../src/records/event.js';
import { issueIdFor } from '../../src/records/issue-id.js';
import { groupingConfigSchema, type GroupingConfig } from '../../processors/grouping/config.js';
import { groupingFactory } from '../../processors/grouping/factory.js';
import { computeGrouping, hashComponents, titleFor } from '../../processors/grouping/fingerprint.js';
import { normalizeFilename, normalizeFunction, parameterize } from '../../processors/grouping/legacy/normalize-v1.js';

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const TENANT: Tenant = { orgId: 'org_1', projectId: 'proj_web', dataset: 'live' };

let nextId = 0;
function makeEvent(overrides: Partial<ErrorEvent> = {}): ErrorEvent {
  nextId++;
  return {
    id: `00000000-0000-4000-8000-${String(nextId).padStart(12, '0')}`,
    timestamp: '2024-05-01T12:00:00.000Z',
    environment: 'production',
    release: 'web@1.0.0',
    level: 'error',
    exception: { type: 'TypeError', value: 'x is undefined', stacktrace: [] },
    project_id: TENANT.projectId,
    received_at: '2024-05-01T12:00:01.000Z',
    processing_errors: [],
    ...overrides,
  };
}

/** A browser stack trace from one build: framework frames, then app frames, crashing frame last. */
function browserStack(build: { hash: string; line: number; col: number; handler?: string }): StackFrame[] {
  const bundle = `https://cdn.example.com/static/js/main.${build.hash}.js?v=${build.line}`;
  const vendor = `https://cdn.example.com/static/js/vendor-${build.hash}.js`;
  return [
    { filename: vendor, function: 'dispatchEvent', lineno: 1, colno: 100 + build.col, in_app: false },
    { filename: vendor, function: 'invokeGuardedCallback', lineno: 1, colno: 200 + build.col, in_app: false },
    { filename: bundle, function: 'async onSubmit', lineno: build.line, colno: build.col, in_app: true },
    { filename: bundle, function: build.handler ?? 'handleClick', lineno: build.line + 10, colno: build.col + 3, in_app: true },
  ];
}

function eventWith(type: string, value: string, stacktrace: StackFrame[], extra: Partial<ErrorEvent> = {}): ErrorEvent {
  return makeEvent({ exception: { type, value, stacktrace }, ...extra });
}

// A real issues extension (grouping versions) on a temporary data directory, as the service gives it.
let issuesHost: TestHost;
beforeAll(async () => {
  issuesHost = await testHost({ extensions: ['issues'] });
});
afterAll(async () => {
  await issuesHost?.close();
});

function newProcessor(config: Partial<GroupingConfig> = {}) {
  return groupingFactory.create({
    id: { type: 'grouping', text: 'grouping' },
    config: groupingConfigSchema.parse(config),
    host: issuesHost.host,
    signal: 'events',
    pipeline: 'events',
  });
}

async function group(events: ErrorEvent[], tenant: Tenant = TENANT, config: Partial<GroupingConfig> = {}): Promise<ErrorEvent[]> {
  const items: Item<ErrorEvent>[] = events.map((data) => ({ data, tenant, receivedAt: 0, size: 512 }));
  await newProcessor(config).process(items);
  return events;
}

async function issueOf(event: ErrorEvent, tenant: Tenant = TENANT, config: Partial<GroupingConfig> = {}): Promise<string> {
  const [grouped] = await group([event], tenant, config);
  return grouped.issue_id!;
}

// ---------------------------------------------------------------------------------------------
// Factory and config
// ---------------------------------------------------------------------------------------------

describe('grouping factory', () => {
  it('describes itself and parses an empty config to defaults', () => {
    expect(groupingFactory.kind).toBe('processor');
    expect(groupingFactory.type).toBe('grouping');
    expect(groupingFactory.signals).toEqual(['events']);
    expect(groupingFactory.description.length).toBeGreaterThan(0);
    expect(groupingFactory.configSchema.parse({})).toEqual({
      max_frames: 50,
      in_app_only: true,
      upgrade_fallback_days: 30,
      rules: { stacktrace: [], fingerprint: [] },
    });
  });

  it('rejects unknown keys and invalid values', () => {
    expect(groupingConfigSchema.safeParse({ max_frame: 10 }).success).toBe(false);
    expect(groupingConfigSchema.safeParse({ max_frames: 0 }).success).toBe(false);
    expect(groupingConfigSchema.safeParse({ in_app_only: 'yes' }).success).toBe(false);
    expect(groupingConfigSchema.parse({ max_frames: 5, in_app_only: false })).toEqual({
      max_frames: 5,
      in_app_only: false,
      upgrade_fallback_days: 30,
      rules: { stacktrace: [], fingerprint: [] },
    });
  });

  it('sets grouping_hash, issue_id, title, culprit and root_cause', async () => {
    const [event] = await group([eventWith('TypeError', 'x is undefined', browserStack({ hash: '4f3a2b1c', line: 42, col: 7 }))]);
    expect(event.grouping_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(event.issue_id).toBe(issueIdFor(TENANT, event.grouping_hash!));
    expect(event.title).toBe('TypeError: x is undefined');
    expect(event.culprit).toBe('handleClick (https://cdn.example.com/static/js/main.4f3a2b1c.js)');
    expect(event.root_cause?.type).toBe('TypeError');
    expect(event.root_cause?.frame?.function).toBe('handleClick');
  });

  it('leaves items that already have an outcome alone', async () => {
    const event = eventWith('TypeError', 'x', []);
    const item: Item<ErrorEvent> = { data: event, tenant: TENANT, receivedAt: 0, size: 1, outcome: { kind: 'dropped', reason: 'test' } };
    await newProcessor().process([item]);
    expect(event.issue_id).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Grouping
// ---------------------------------------------------------------------------------------------

describe('default grouping by stack trace', () => {
  it('groups the same error across releases despite line, column and bundle-hash changes', async () => {
    const [a, b] = await group([
      eventWith('TypeError', 'x is undefined', browserStack({ hash: '4f3a2b1c', line: 42, col: 7 }), { release: 'web@1.0.0' }),
      eventWith('TypeError', 'y is undefined', browserStack({ hash: '9e8d7c6b5a', line: 57, col: 19 }), { release: 'web@1.1.0' }),
    ]);
    expect(a.issue_id).toBe(b.issue_id);
    expect(a.grouping_hash).toBe(b.grouping_hash);
    expect(a.culprit).not.toBe(b.culprit); // the culprit keeps the real file name
  });

  it('groups chunk-HASH and name-HASH.min bundle names with their un-hashed form', async () => {
    const stack = (file: string): StackFrame[] => [{ filename: file, function: 'render', lineno: 1, colno: 2, in_app: true }];
    const a = await issueOf(eventWith('Error', 'boom', stack('/assets/chunk-5F2A9B7C.js')));
    const b = await issueOf(eventWith('Error', 'boom', stack('C:\\build\\assets\\chunk-0A1B2C3D.js#frag')));
    const c = await issueOf(eventWith('Error', 'boom', stack('chunk.js')));
    expect(a).toBe(b);
    expect(a).toBe(c);
  });

  it('separates different exception types', async () => {
    const stack = browserStack({ hash: '4f3a2b1c', line: 42, col: 7 });
    const a = await issueOf(eventWith('TypeError', 'x is undefined', stack));
    const b = await issueOf(eventWith('RangeError', 'x is undefined', structuredClone(stack)));
    expect(a).not.toBe(b);
  });

  it('separates errors raised in different in-app functions', async () => {
    const a = await issueOf(eventWith('TypeError', 'x', browserStack({ hash: '4f3a2b1c', line: 42, col: 7, handler: 'handleClick' })));
    const b = await issueOf(eventWith('TypeError', 'x', browserStack({ hash: '4f3a2b1c', line: 42, col: 7, handler: 'handleSubmit' })));
    expect(a).not.toBe(b);
  });

  it('ignores library frames when in-app frames exist', () => {
    const base = browserStack({ hash: '4f3a2b1c', line: 42, col: 7 });
    const other = structuredClone(base);
    other[0].function = 'somethingElseEntirely';
    const a = computeGrouping(eventWith('TypeError', 'x', base));
    const b = computeGrouping(eventWith('TypeError', 'x', other));
    expect(a.basis).toBe('in_app_frames');
    // `async onSubmit` is a frame V8 adds after an await (other engines do not): it does not count.
    expect(a.components).toEqual(['TypeError', 'js/main:handleClick']);
    expect(a.hash).toBe(b.hash);
    // …unless in_app_only is off.
    expect(computeGrouping(eventWith('TypeError', 'x', base), { in_app_only: false }).hash).not.toBe(
      computeGrouping(eventWith('TypeError', 'x', other), { in_app_only: false }).hash,
    );
  });

  it('falls back to all frames when none is in-app', () => {
    const frames: StackFrame[] = [
      { module: 'django.core.handlers', function: 'get_response', lineno: 10, in_app: false },
      { filename: '/usr/lib/python3/site-packages/requests/api.py', function: 'request', lineno: 59 },
    ];
    const result = computeGrouping(eventWith('ConnectionError', 'refused', frames));
    expect(result.basis).toBe('all_frames');
    expect(result.components).toEqual(['ConnectionError', 'django.core.handlers:get_response', 'api.py:request']);
    expect(result.culprit).toBe('request (/usr/lib/python3/site-packages/requests/api.py)');
  });

  it('never uses line or column numbers, and prefers module over file name', () => {
    const frames = (line: number): StackFrame[] => [
      { module: 'app.services.billing', filename: `billing_v${line}.py`, function: 'charge', lineno: line, colno: line, in_app: true },
    ];
    expect(computeGrouping(eventWith('KeyError', "'card'", frames(3))).hash).toBe(computeGrouping(eventWith('KeyError', "'card'", frames(300))).hash);
  });

  it('skips frames with neither function nor file, and keeps anonymous ones', () => {
    const result = computeGrouping(
      eventWith('Error', 'x', [
        { lineno: 1, colno: 1, in_app: true },
        { filename: 'app.js', function: '<anonymous>', in_app: true },
        { function: 'Object.<anonymous>', in_app: true },
      ]),
    );
    expect(result.components).toEqual(['Error', 'app:?', '?:<module>']);
  });

  it('counts only the innermost max_frames frames and collapses direct recursion', () => {
    const frames: StackFrame[] = ['main', 'a', 'b', 'c'].map((fn) => ({ filename: 'app.js', function: fn, in_app: true }));
    expect(computeGrouping(eventWith('Error', 'x', frames), { max_frames: 2 }).components).toEqual(['Error', 'app:b', 'app:c']);

    const recursive = (depth: number): StackFrame[] => [
      { filename: 'tree.js', function: 'main', in_app: true },
      ...Array.from({ length: depth }, () => ({ filename: 'tree.js', function: 'walk', in_app: true })),
    ];
    expect(computeGrouping(eventWith('RangeError', 'Maximum call stack size exceeded', recursive(3))).hash).toBe(
      computeGrouping(eventWith('RangeError', 'Maximum call stack size exceeded', recursive(900))).hash,
    );
  });
});

describe('grouping without frames', () => {
  it('groups by type and parameterized value', async () => {
    const a = await issueOf(eventWith('NotFoundError', 'User 123 not found', []));
    const b = await issueOf(eventWith('NotFoundError', 'User 456 not found', []));
    const c = await issueOf(eventWith('NotFoundError', 'Order 123 not found', []));
    const d = await issueOf(eventWith('NotFoundError', 'User 123 not found', undefined as never));
    expect(a).toBe(b);
    expect(a).toBe(d);
    expect(a).not.toBe(c);
    expect(computeGrouping(eventWith('NotFoundError', 'User 123 not found', [])).components).toEqual(['NotFoundError', 'User <int> not found']);
  });

  it('uses the message when the value is empty', () => {
    const result = computeGrouping(eventWith('Error', '', [], { message: 'Job 77 failed' }));
    expect(result.basis).toBe('value');
    expect(result.components).toEqual(['Error', 'Job <int> failed']);
  });
});

describe('tenancy', () => {
  it('gives the same fingerprint a different issue in another project or dataset', async () => {
    const stack = () => browserStack({ hash: '4f3a2b1c', line: 42, col: 7 });
    const live = await issueOf(eventWith('TypeError', 'x', stack()));
    const otherProject = await issueOf(eventWith('TypeError', 'x', stack()), { ...TENANT, projectId: 'proj_api' });
    const sandbox = await issueOf(eventWith('TypeError', 'x', stack()), { ...TENANT, dataset: 'test' });
    const otherOrgSameProject = await issueOf(eventWith('TypeError', 'x', stack()), { ...TENANT, orgId: 'org_2' });
    expect(new Set([live, otherProject, sandbox]).size).toBe(3);
    // Project ids are global, so the organization does not take part in the id.
    expect(otherOrgSameProject).toBe(live);
  });

  it('issue ids are 16 lowercase hex chars and stable across runs', async () => {
    const fixture = () =>
      eventWith('TypeError', 'x is undefined', browserStack({ hash: '4f3a2b1c', line: 42, col: 7 }), {
        id: '7d444840-9dc0-11d1-b245-5ffdce74fad2',
      });
    const first = await issueOf(fixture());
    const second = await issueOf(fixture());
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(second).toBe(first);
    expect(computeGrouping(fixture()).hash).toBe(computeGrouping(fixture()).hash);
  });
});

describe('custom fingerprints', () => {
  it('wins over the default grouping', async () => {
    const a = eventWith('TypeError', 'x', browserStack({ hash: '4f3a2b1c', line: 42, col: 7 }), { fingerprint: ['payment-gateway', 'timeout'] });
    const b = eventWith('NetworkError', 'y 123', [], { fingerprint: ['payment-gateway', 'timeout'] });
    const plain = eventWith('TypeError', 'x', browserStack({ hash: '4f3a2b1c', line: 42, col: 7 }));
    await group([a, b, plain]);
    expect(a.issue_id).toBe(b.issue_id);
    expect(a.issue_id).not.toBe(plain.issue_id);
    expect(a.grouping_hash).toBe(hashComponents(['payment-gateway', 'timeout']));
    expect(computeGrouping(a).basis).toBe('custom');
  });

  it('expands {{ default }} in any spelling to the default components', () => {
    const stack = () => browserStack({ hash: '4f3a2b1c', line: 42, col: 7 });
    const plain = computeGrouping(eventWith('TypeError', 'x', stack()));
    for (const marker of ['{{ default }}', '{{default}}', '{{  DEFAULT\t}}', ' {{ Default }} ']) {
      expect(computeGrouping(eventWith('TypeError', 'x', stack(), { fingerprint: [marker] })).hash).toBe(plain.hash);
    }
    const tenantA = computeGrouping(eventWith('TypeError', 'x', stack(), { fingerprint: ['{{ default }}', 'customer-a'] }));
    const tenantB = computeGrouping(eventWith('TypeError', 'x', stack(), { fingerprint: ['{{ default }}', 'customer-b'] }));
    expect(tenantA.components).toEqual([...plain.components, 'customer-a']);
    expect(tenantA.hash).not.toBe(tenantB.hash);
    expect(tenantA.hash).not.toBe(plain.hash);
  });

  it('uses other entries as given and treats an empty fingerprint as absent', () => {
    const r = computeGrouping(eventWith('Error', 'x', [], { fingerprint: ['{{ type }}', 'User 123'] }));
    expect(r.components).toEqual(['{{ type }}', 'User 123']);
    expect(computeGrouping(eventWith('Error', 'x', [], { fingerprint: [] })).basis).toBe('value');
  });
});

// ---------------------------------------------------------------------------------------------
// Normalization
// ---------------------------------------------------------------------------------------------

describe('normalizeFilename', () => {
  it.each([
    ['https://cdn.example.com/static/js/main.4f3a2b1c.js?v=3', 'main.js'],
    ['/assets/chunk-5F2A9B7C.js', 'chunk.js'],
    ['app-abc123def456.min.js', 'app.min.js'],
    ['C:\\Users\\dev\\project\\src\\app.ts', 'app.ts'],
    ['webpack:///./src/components/Button.tsx#L10', 'Button.tsx'],
    ['index-BkW3xq9Z.js', 'index.js'],
    ['4f3a2b1c.chunk.js', '<hash>.chunk.js'],
    ['facade.js', 'facade.js'],
    ['jquery-3.6.0.min.js', 'jquery-3.6.0.min.js'],
    ['react-dom.production.min.js', 'react-dom.production.min.js'],
  ])('%s -> %s', (input, expected) => {
    expect(normalizeFilename(input)).toBe(expected);
  });
});

describe('normalizeFunction', () => {
  it.each([
    ['  handleClick  ', 'handleClick'],
    ['async handleClick', 'handleClick'],
    ['async*load', 'load'],
    ['new UserService', 'UserService'],
    ['Object.<anonymous>', '<module>'],
    ['<anonymous>', '?'],
    ['?', '?'],
    ['Anonymous function', '?'],
    ['HTMLButtonElement.<anonymous>', 'HTMLButtonElement.?'],
    ['_api__WEBPACK_IMPORTED_MODULE_3__.fetchUser', '_api.fetchUser'],
    ['render$1', 'render'],
    ['render$$2', 'render'],
    ['Parser$1.parse', 'Parser.parse'],
    ['Foo.prototype.\n   bar', 'Foo.prototype. bar'],
  ])('%j -> %j', (input, expected) => {
    expect(normalizeFunction(input)).toBe(expected);
  });

  it('returns undefined for a missing or blank name', () => {
    expect(normalizeFunction(undefined)).toBeUndefined();
    expect(normalizeFunction('   ')).toBeUndefined();
  });
});

describe('parameterize', () => {
  it.each([
    ['User 123 not found', 'User <int> not found'],
    ['Order 4f9a1c2e-1b3d-4a5b-9c8d-0e1f2a3b4c5d missing', 'Order <uuid> missing'],
    ['No account for jane.doe+test@example.co.uk.', 'No account for <email>.'],
    ['GET https://api.example.com/users/42?page=2 failed.', 'GET <url> failed.'],
    ['fetch https://api.example.com/items/4f9a1c2e-1b3d-4a5b-9c8d-0e1f2a3b4c5d timed out', 'fetch <url> timed out'],
    ['expired at 2024-01-15T10:30:00.123Z (issued 2024-01-01)', 'expired at <date> (issued <date>)'],
    ['connect ECONNREFUSED 10.0.0.12:5432', 'connect ECONNREFUSED <ip>:<int>'],
    ['no route to 2001:db8::8a2e:370:7334 or fe80::1 or ::ffff:192.0.2.1', 'no route to <ip> or <ip> or <ip>'],
    ['segfault at 0x7ffd1234, object deadbeef12', 'segfault at <hex>, object <hex>'],
    ['took 3.14 seconds for 12 rows', 'took <float> seconds for <int> rows'],
    ['utf8 v2 ERR_404 std::vector A::B', 'utf8 v2 ERR_404 std::vector A::B'],
  ])('%j -> %j', (input, expected) => {
    expect(parameterize(input)).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// Title, culprit, root cause
// ---------------------------------------------------------------------------------------------

describe('title', () => {
  it('is "<type>: <value>" with the value cut to 100 characters', () => {
    const long = 'a'.repeat(150);
    const title = computeGrouping(eventWith('Error', long, [])).title;
    expect(title).toBe(`Error: ${'a'.repeat(99)}…`);
    expect(Array.from(title.slice('Error: '.length))).toHaveLength(100);
    expect(titleFor('Error', 'b'.repeat(100))).toBe(`Error: ${'b'.repeat(100)}`);
  });

  it('falls back to the message, then to the type alone', () => {
    expect(titleFor('Error', '', 'Something broke')).toBe('Error: Something broke');
    expect(titleFor('Error', 'real value', 'message')).toBe('Error: real value');
    expect(titleFor('Error', '')).toBe('Error');
    expect(titleFor('Error', 'line one\n  line two')).toBe('Error: line one line two');
  });
});

describe('culprit and root cause', () => {
  it('names the last in-app frame and summarizes with line and column', () => {
    const frames: StackFrame[] = [
      { filename: 'src/index.js', function: 'main', lineno: 3, colno: 1, in_app: true },
      { filename: 'src/app.js', function: 'handleClick', lineno: 42, colno: 7, in_app: true },
      { filename: 'node_modules/react-dom/index.js', function: 'callCallback', lineno: 9, colno: 9, in_app: false },
    ];
    const result = computeGrouping(eventWith('TypeError', 'x is undefined', frames));
    expect(result.culprit).toBe('handleClick (src/app.js)');
    expect(result.root_cause).toEqual({
      type: 'TypeError',
      value: 'x is undefined',
      frame: frames[1],
      summary: 'TypeError: x is undefined in handleClick (src/app.js:42:7)',
    });
  });

  it('uses the last frame when none is in-app, and handles missing parts', () => {
    const onlyFile = computeGrouping(eventWith('Error', 'x', [{ filename: 'lib.js', lineno: 5 }]));
    expect(onlyFile.culprit).toBe('lib.js');
    expect(onlyFile.root_cause.summary).toBe('Error: x at lib.js:5');
    const onlyFunction = computeGrouping(eventWith('Error', 'x', [{ function: 'run' }]));
    expect(onlyFunction.culprit).toBe('run');
    expect(onlyFunction.root_cause.summary).toBe('Error: x in run');
    const module = computeGrouping(eventWith('Error', 'x', [{ module: 'app.jobs', filename: 'app/jobs.py', function: 'run', lineno: 8 }]));
    expect(module.culprit).toBe('run (app.jobs)');
    expect(module.root_cause.summary).toBe('Error: x in run (app/jobs.py:8)');
  });

  it('is empty without frames', () => {
    const result = computeGrouping(eventWith('Error', 'User 1 not found', []));
    expect(result.culprit).toBe('');
    expect(result.root_cause).toEqual({ type: 'Error', value: 'User 1 not found', frame: null, summary: 'Error: User 1 not found' });
  });
});
