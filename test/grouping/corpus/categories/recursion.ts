// Recursion: stacks that repeat a cycle of 1–5 frames, direct and mutual, some through builtins
// or lambdas. Stack overflows keep only a window of innermost frames — V8 (Chrome, Edge, Node) 10,
// Safari 100, Firefox 128, the JVM 1024 — which starts wherever the overflow hit in the cycle;
// Python keeps every frame, the outer non-recursive ones too. Other bugs crash at a random depth of
// a recursion. Hard negatives: two redirect loops that differ by one guard in a 5-frame cycle, two
// Node overflows with different cycles.
import { App, envelope, occurrences, STORED_FRAMES } from '../common.js';
import { j, type JavaApp, type JavaSite, javaType, jvmRun, lambdaClass, renderJava, springMvc } from '../java.js';
import { type Browser, browserTag, type Engine, ENGINE_OF, FRAME_LIMIT, type JsSite, pickBrowser, renderJs, SENTRY_BROWSER, symbolicated } from '../js.js';
import { INTERNALS, nodeSite as s, type NodeSite, renderNode } from '../nodejs.js';
import { py, type PySite, pyType, renderPython, type PyVersion } from '../python.js';
import type { Category, CorpusEntry } from '../types.js';

const CATEGORY = 'recursion';

/** The `count` innermost frames of an endless recursion through `cycle` that overflowed at `cycle[phase]`, oldest first. */
export function overflowWindow<T>(cycle: readonly T[], count: number, phase: number): T[] {
  const out: T[] = [];
  for (let i = count - 1; i >= 0; i--) out.push(cycle[(((phase - i) % cycle.length) + cycle.length) % cycle.length]);
  return out;
}

/** `depth` passes through `cycle` (oldest first). */
export function repeat<T>(cycle: readonly T[], depth: number): T[] {
  return Array.from({ length: depth }, () => cycle).flat();
}

// ---------------------------------------------------------------------------------------------
// Browsers
// ---------------------------------------------------------------------------------------------

const editor = new App('docs-editor', ['6.0.0', '6.0.1', '6.1.0', '6.2.0']);

const overflowError = (engine: Engine) =>
  engine === 'gecko'
    ? { type: 'InternalError', value: 'too much recursion' }
    : { type: 'RangeError', value: engine === 'jsc' ? 'Maximum call stack size exceeded.' : 'Maximum call stack size exceeded' };

const site = (file: string, line: number, col: number, fields: Omit<JsSite, 'file' | 'line' | 'col'> = {}): JsSite => ({ ...fields, file, line, col });

function browserOverflow(id: string, count: readonly [number, number], cycle: JsSite[], browsers?: ReadonlyArray<readonly [Browser, number]>): CorpusEntry[] {
  return occurrences(CATEGORY, id, count, (rng) => {
    const browser = pickBrowser(rng, browsers);
    const engine = ENGINE_OF[browser];
    const release = editor.pickRelease(rng);
    // Twice the window, so that engines dropping builtin frames still fill theirs.
    const sites = overflowWindow(cycle, 2 * FRAME_LIMIT[engine], rng.int(0, cycle.length - 1));
    const frames = renderJs(engine, sites, { place: symbolicated(editor, release), inApp: SENTRY_BROWSER.inApp, anonymous: SENTRY_BROWSER.anonymous });
    return envelope(rng, {
      release: editor.release(release),
      platform: 'javascript',
      exception: { ...overflowError(engine), stacktrace: frames },
      tags: { browser: browserTag(rng, browser) },
    });
  });
}

const navigate = site('src/router/navigate.ts', 30, 10, { fn: 'navigate', cls: 'Router' });
const runGuards = site('src/router/guards.ts', 12, 20, { fn: 'runGuards' });
const redirect = site('src/router/redirect.ts', 8, 17, { fn: 'redirect' });
const push = site('src/router/navigate.ts', 61, 12, { fn: 'push', cls: 'Router' });

/** A comment thread rendered recursively through `replies.map(…)`, crashing on a reply at some depth. */
function commentThread(depth: number): JsSite[] {
  const level = [
    site('src/comments/thread.ts', 22, 30, { fn: 'renderThread' }),
    site('src/comments/thread.ts', 22, 30, { builtin: 'Array.map' }),
    site('src/comments/thread.ts', 24, 14, { enclosing: 'renderThread' }),
  ];
  return [
    site('src/comments/list.ts', 40, 18, { fn: 'render', cls: 'CommentList' }),
    ...repeat(level, depth),
    site('src/comments/thread.ts', 22, 30, { fn: 'renderThread' }),
    site('src/comments/body.ts', 5, 31, { fn: 'renderBody' }),
  ];
}

const BROWSER_BUGS: CorpusEntry[][] = [
  browserOverflow('outline-render-direct', [6, 14], [site('src/outline/render.ts', 18, 12, { fn: 'renderHeading' })]),
  browserOverflow(
    'menu-expand-mutual',
    [6, 14],
    [site('src/menu/tree.ts', 41, 9, { fn: 'expandItem', cls: 'MenuTree' }), site('src/menu/tree.ts', 58, 14, { fn: 'expandChildren', cls: 'MenuTree' })],
  ),
  browserOverflow(
    'schema-resolve-refs',
    [5, 12],
    [
      site('src/schema/resolve.ts', 14, 28, { fn: 'resolveSchema' }),
      site('src/schema/resolve.ts', 14, 28, { builtin: 'Array.forEach' }),
      site('src/schema/resolve.ts', 15, 22, { enclosing: 'resolveSchema' }),
      site('src/schema/resolve.ts', 33, 12, { fn: 'resolveRef' }),
    ],
  ),
  browserOverflow('router-auth-redirect-loop', [8, 16], [navigate, runGuards, site('src/router/guards.ts', 40, 12, { fn: 'authGuard' }), redirect, push]),
  // The same loop through another guard.
  browserOverflow('router-locale-redirect-loop', [5, 12], [navigate, runGuards, site('src/router/guards.ts', 71, 12, { fn: 'localeGuard' }), redirect, push]),
  occurrences(CATEGORY, 'comment-thread-missing-author', [8, 16], (rng) => {
    const browser = pickBrowser(rng);
    const engine = ENGINE_OF[browser];
    const release = editor.pickRelease(rng);
    const frames = renderJs(engine, commentThread(rng.int(1, 30)), { place: symbolicated(editor, release), inApp: 'all', anonymous: '?' });
    return envelope(rng, {
      release: editor.release(release),
      platform: 'javascript',
      exception: {
        ...(engine === 'gecko'
          ? { type: 'TypeError', value: 'can\'t access property "name", reply.author is undefined' }
          : engine === 'jsc'
            ? { type: 'TypeError', value: "undefined is not an object (evaluating 'reply.author.name')" }
            : { type: 'TypeError', value: "Cannot read properties of undefined (reading 'name')" }),
        stacktrace: frames,
      },
      tags: { browser: browserTag(rng, browser) },
    });
  }),
];

// ---------------------------------------------------------------------------------------------
// Node
// ---------------------------------------------------------------------------------------------

const importer = new App('catalog-importer', ['2.0.0', '2.1.0', '2.1.1']);

function nodeOverflow(id: string, count: readonly [number, number], cycle: NodeSite[]): CorpusEntry[] {
  return occurrences(CATEGORY, id, count, (rng) => {
    const release = importer.pickRelease(rng);
    const version = rng.pick([18, 20] as const);
    const frames = renderNode(overflowWindow(cycle, 10, rng.int(0, cycle.length - 1)), 'sentry', '/app', importer, release);
    return envelope(rng, {
      release: importer.release(release),
      platform: 'node',
      exception: { type: 'RangeError', value: 'Maximum call stack size exceeded', stacktrace: frames },
      tags: { runtime: `node v${version}.${rng.int(1, 14)}.0` },
    });
  });
}

const NODE_BUGS: CorpusEntry[][] = [
  // lodash's cloneDeep on a cyclic object: only library frames in the window.
  nodeOverflow(
    'clone-cyclic-product',
    [6, 14],
    [
      s('baseClone', 'node_modules/lodash/lodash.js', 2657, 16),
      s('arrayEach', 'node_modules/lodash/lodash.js', 530, 11),
      s(undefined, 'node_modules/lodash/lodash.js', 2657, 38),
      s('assignValue', 'node_modules/lodash/lodash.js', 2566, 9),
    ],
  ),
  nodeOverflow(
    'product-tojson-cycle',
    [5, 12],
    [s('Product.toJSON', 'dist/models/product.js', 44, 21), s('JSON.stringify', '<anonymous>'), s('Variant.toJSON', 'dist/models/variant.js', 30, 17)],
  ),
  occurrences(CATEGORY, 'category-path-missing-parent', [6, 14], (rng) => {
    const release = importer.pickRelease(rng);
    const version = rng.pick([18, 20] as const);
    const depth = rng.int(1, 12);
    const sites = [
      ...INTERNALS[version].timers,
      s('Timeout._onTimeout', 'dist/scheduler.js', 15, 7),
      s('importBatch', 'dist/import.js', 50, 18),
      ...repeat([s('categoryPath', 'dist/categories.js', 21, 25)], depth),
      s('categoryPath', 'dist/categories.js', 19, 33),
    ];
    return envelope(rng, {
      release: importer.release(release),
      platform: 'node',
      exception: {
        type: 'TypeError',
        value: "Cannot read properties of undefined (reading 'slug')",
        stacktrace: renderNode(sites, 'sentry', '/app', importer, release),
      },
    });
  }),
];

// ---------------------------------------------------------------------------------------------
// JVM and Python
// ---------------------------------------------------------------------------------------------

const rules: JavaApp = {
  app: new App('rules-engine', ['3.4.0', '3.5.0', '3.5.1']),
  sdk: 'sentry',
  jdks: () => [17, 21],
  spring: () => 6,
};

const JAVA_BUGS: CorpusEntry[][] = [
  // A StackOverflowError: the JVM keeps the 1024 innermost frames, all in the cycle (with a lambda per run).
  occurrences(CATEGORY, 'expression-eval-overflow', [4, 7], (rng) => {
    const release = rules.app.pickRelease(rng);
    const run = jvmRun(rules, release, rng);
    const cycle: JavaSite[] = [
      j('com.acme.rules.eval.Evaluator', 'eval', 48),
      j('com.acme.rules.ast.BinaryNode', 'accept', 22),
      j('com.acme.rules.eval.Evaluator', 'visitBinary', 91),
      j(lambdaClass('com.acme.rules.eval.Evaluator', run), 'apply', undefined, null),
      j('com.acme.rules.eval.Evaluator', `lambda$visitBinary$${release < 1 ? 1 : 2}`, 93),
    ];
    const frames = renderJava(overflowWindow(cycle, Math.min(1024, STORED_FRAMES), rng.int(0, cycle.length - 1)), 'sentry', run.jdk);
    return envelope(rng, {
      release: rules.app.release(release),
      platform: 'java',
      exception: { ...javaType('java.lang.StackOverflowError', 'sentry'), value: '', stacktrace: frames },
    });
  }),
  // Role inheritance resolved recursively, crashing on a role without parents list at some depth.
  occurrences(CATEGORY, 'role-parents-npe', [6, 14], (rng) => {
    const release = rules.app.pickRelease(rng);
    const run = jvmRun(rules, release, rng);
    const level = [j('com.acme.rules.auth.PermissionResolver', 'resolve', 37), j('com.acme.rules.auth.RoleGraph', 'inherited', 58)];
    const sites = [
      ...springMvc(6, run, rng.chance(0.7)),
      j('com.acme.rules.web.AccessController', 'check', 29),
      ...repeat(level, rng.int(1, 25)),
      j('com.acme.rules.auth.PermissionResolver', 'resolve', 37),
      j('com.acme.rules.auth.RoleGraph', 'parentsOf', 71),
    ];
    return envelope(rng, {
      release: rules.app.release(release),
      platform: 'java',
      exception: {
        ...javaType('java.lang.NullPointerException', 'sentry'),
        value: 'Cannot invoke "java.util.List.iterator()" because the return value of "com.acme.rules.auth.Role.getParents()" is null',
        stacktrace: renderJava(sites, 'sentry', run.jdk),
      },
    });
  }),
];

const cms = new App('cms-backend', ['8.1.0', '8.2.0', '8.2.1']);

const CMS_REQUEST: PySite[] = [
  py('django.core.handlers.exception', 'inner', 55),
  py('django.core.handlers.base', '_get_response', 197),
  py('django.views.generic.base', 'view', 104),
  py('cms.api.pages', 'get', 40),
  py('cms.pages.serializers', 'to_representation', 77),
];

const PY_BUGS: CorpusEntry[][] = [
  // RecursionError: Python keeps every frame (the request's too); where it hits decides the message.
  occurrences(CATEGORY, 'page-settings-merge-recursion', [3, 5], (rng) => {
    const release = cms.pickRelease(rng);
    const version: PyVersion = rng.pick(['3.11', '3.12']);
    const cycle = [py('cms.pages.settings', 'merge', 18), py('cms.pages.settings', 'merge_value', 31), py('cms.pages.settings', '<dictcomp>', 19, true)];
    const effective = version === '3.12' ? cycle.filter((frame) => !frame.comprehension) : cycle;
    // The recursion starts at `merge` under the request's frames; the limit decides where it ends.
    const depth = 1000 - CMS_REQUEST.length - rng.int(0, 3);
    const frames = [...CMS_REQUEST, ...Array.from({ length: depth }, (_, i) => effective[i % effective.length])].slice(-STORED_FRAMES);
    return envelope(rng, {
      release: cms.release(release),
      platform: 'python',
      exception: {
        ...pyType('RecursionError'),
        value:
          version === '3.12'
            ? 'maximum recursion depth exceeded'
            : rng.pick(['maximum recursion depth exceeded while calling a Python object', 'maximum recursion depth exceeded in comparison']),
        stacktrace: renderPython(frames, { version, root: '/srv/cms', app: ['cms'] }),
      },
    });
  }),
  occurrences(CATEGORY, 'menu-flatten-missing-children', [6, 14], (rng) => {
    const release = cms.pickRelease(rng);
    const version: PyVersion = rng.pick(['3.10', '3.11', '3.12']);
    const level = [py('cms.menus.tree', 'flatten', 12), py('cms.menus.tree', '<listcomp>', 12, true)];
    const frames = [...CMS_REQUEST.slice(0, 3), py('cms.api.menus', 'get', 22), ...repeat(level, rng.int(1, 20)), py('cms.menus.tree', 'flatten', 10)];
    return envelope(rng, {
      release: cms.release(release),
      platform: 'python',
      exception: { ...pyType('KeyError'), value: "'children'", stacktrace: renderPython(frames, { version, root: '/srv/cms', app: ['cms'] }) },
    });
  }),
];

export const recursion: Category = {
  name: CATEGORY,
  description:
    "Cycles of 1–5 frames (direct, mutual, through builtins and lambdas) at any depth, with the engine's window (V8 10, Safari 100, Firefox 128, JVM 1024, Python all) starting anywhere in the cycle",
  build: (): CorpusEntry[] => [...BROWSER_BUGS, ...NODE_BUGS, ...JAVA_BUGS, ...PY_BUGS].flat(),
};
