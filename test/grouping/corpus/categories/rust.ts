// Rust through sentry-rust's panic integration (`platform: native`, type `panic`): symbols with and
// without their legacy-mangling hash (`::h1a2b3c4d5e6f7a8b`), closures as `{{closure}}` (legacy)
// or `{closure#0}` (v0 mangling), monomorphized generics (`Repo<shop::db::Pg>::load` vs
// `Repo<T>::load`), trait impls (`<shop::api::Orders as axum::handler::Handler<…>>::call`), and
// core/std frames under the toolchain's `/rustc/<commit>/library/…` path that change with the
// toolchain. Hard negatives: another panic (index out of bounds) at the same function, another
// innermost function, another error type from the same handler.
import { App } from '../common.js';
import type { Random } from '../random.js';
import { line, sdkCategory, type SdkBug } from '../sdk.js';
import type { CorpusFrame } from '../types.js';

type Toolchain = '1.76' | '1.79' | '1.82';
const COMMITS: Record<Toolchain, string> = {
  '1.76': '07dca489ac2d933c78d3c5158e3f43beefeb02ce',
  '1.79': '129f3b9964af4d4a709d1383930ade12dfe7c081',
  '1.82': 'f6e511eec7342f59a25f7c0534f1dbea00d01b14',
};
const app = new App('ledger', ['0.9.0', '0.9.1', '0.10.0', '0.11.0']);

/** `path` segments; `closure` adds a closure level; `generic` the monomorphized type argument; `impl` a trait impl. */
interface RustSite {
  path: string;
  closure?: boolean;
  generic?: string;
  impl?: string;
  file: string;
  line: number;
}

const r = (path: string, file: string, lineNo: number, more: Partial<RustSite> = {}): RustSite => ({ path, file, line: lineNo, ...more });

function symbol(s: RustSite, v0: boolean, hash: boolean, rng: Random): string {
  let name = s.path;
  if (s.generic !== undefined) {
    const at = name.lastIndexOf('::');
    name = `${name.slice(0, at)}<${v0 ? s.generic : 'T'}>${name.slice(at)}`;
  }
  if (s.impl !== undefined) {
    const at = name.lastIndexOf('::');
    name = `<${name.slice(0, at)} as ${s.impl}>${name.slice(at)}`;
  }
  if (s.closure === true) name += v0 ? '::{closure#0}' : '::{{closure}}';
  return hash ? `${name}::h${rng.hex(16)}` : name;
}

function render(sites: readonly RustSite[], toolchain: Toolchain, v0: boolean, rng: Random, release: number): CorpusFrame[] {
  const hash = !v0 && rng.chance(0.6);
  return sites.map((s) => {
    const ours = s.path.startsWith('ledger');
    const library = s.path.startsWith('core::') || s.path.startsWith('std::') || s.path.startsWith('alloc::');
    const abs = ours
      ? `/build/ledger/${s.file}`
      : library
        ? `/rustc/${COMMITS[toolchain]}/library/${s.file}`
        : `/usr/local/cargo/registry/src/index.crates.io-6f17d22bba15001f/${s.file}`;
    return {
      function: symbol(s, v0, hash, rng),
      filename: ours ? s.file : abs,
      abs_path: abs,
      lineno: ours ? line(app, release, s.file, s.line) : s.line,
      in_app: ours,
      instruction_addr: `0x${(0x55d0_0000_0000 + rng.int(0, 0xffffff)).toString(16)}`,
    };
  });
}

const TOKIO: RustSite[] = [
  r('tokio::runtime::task::harness::Harness::poll', 'tokio-1.37.0/src/runtime/task/harness.rs', 151),
  r('core::future::future::Future::poll', 'core/src/future/future.rs', 123, { impl: 'core::future::future::Future', generic: 'P' }),
];
const PANIC = (toolchain: Toolchain, what: 'unwrap' | 'index'): RustSite[] => [
  ...(what === 'unwrap'
    ? toolchain === '1.76'
      ? [r('core::panicking::panic', 'core/src/panicking.rs', 127)]
      : [r('core::option::unwrap_failed', 'core/src/option.rs', 2015)]
    : [r('core::panicking::panic_bounds_check', 'core/src/panicking.rs', 219)]),
  r('core::panicking::panic_fmt', 'core/src/panicking.rs', 72),
  r('std::panicking::begin_panic_handler', 'std/src/panicking.rs', 645),
];
const HANDLER: RustSite[] = [
  ...TOKIO,
  r('ledger::api::PostEntry::call', 'src/api/entries.rs', 40, { impl: 'axum::handler::Handler<(), ledger::AppState>', closure: true }),
  r('ledger::entries::Repo::insert', 'src/entries/repo.rs', 77, { generic: 'ledger::db::Pg', closure: true }),
];

function rustBug(id: string, count: readonly [number, number], build: (toolchain: Toolchain) => { value: string; type?: string; sites: RustSite[] }): SdkBug {
  return {
    id,
    count,
    make: (rng, release) => {
      const toolchain: Toolchain = release < 2 ? rng.pick(['1.76', '1.79'] as const) : rng.pick(['1.79', '1.82'] as const);
      const v0 = rng.chance(0.4);
      const { value, type, sites } = build(toolchain);
      // Panic frames are innermost-last in the event; sentry-rust keeps the panic machinery.
      return {
        exception: { type: type ?? 'panic', value, stacktrace: render(sites, toolchain, v0, rng, release) },
        tags: { rustc: toolchain, mangling: v0 ? 'v0' : 'legacy' },
      };
    },
  };
}

const BUGS: SdkBug[] = [
  rustBug('entry-insert-missing-account', [9, 16], (t) => ({
    value: 'called `Option::unwrap()` on a `None` value',
    sites: [...HANDLER, r('ledger::entries::balance_after', 'src/entries/balance.rs', 19), ...PANIC(t, 'unwrap')],
  })),
  // The same function, another panic.
  rustBug('entry-insert-split-index', [6, 12], (t) => ({
    value: 'index out of bounds: the len is 2 but the index is 2',
    sites: [...HANDLER, r('ledger::entries::balance_after', 'src/entries/balance.rs', 24), ...PANIC(t, 'index')],
  })),
  // The same handler; the currency conversion panics.
  rustBug('entry-insert-unknown-currency', [6, 13], (t) => ({
    value: 'called `Option::unwrap()` on a `None` value',
    sites: [...HANDLER, r('ledger::fx::convert', 'src/fx.rs', 51, { generic: 'ledger::fx::Eur' }), ...PANIC(t, 'unwrap')],
  })),
  // A worker's closure in a generic job type.
  rustBug('reconcile-job-overflow', [7, 14], (t) => ({
    value: 'attempt to add with overflow',
    sites: [
      ...TOKIO,
      r('ledger::jobs::Reconcile::run', 'src/jobs/reconcile.rs', 30, { impl: 'ledger::jobs::Job', closure: true }),
      r('ledger::jobs::sum_batches', 'src/jobs/reconcile.rs', 88, { generic: 'i64' }),
      ...(t === '1.76'
        ? [r('core::panicking::panic', 'core/src/panicking.rs', 127)]
        : [r('core::panicking::panic_const::panic_const_add_overflow', 'core/src/panicking.rs', 181)]),
      r('core::panicking::panic_fmt', 'core/src/panicking.rs', 72),
    ],
  })),
  // An error (not a panic) captured in the same handler: another type.
  rustBug('entry-insert-db-error', [5, 11], () => ({
    type: 'sqlx_core::error::Error',
    value: 'error returned from database: duplicate key value violates unique constraint "entries_pkey"',
    sites: [...HANDLER],
  })),
];

export const rust = sdkCategory(
  'rust',
  'Rust (sentry-rust, `native`): `::h…` hashes, `{{closure}}` vs `{closure#0}`, monomorphized generics, trait impls, toolchain paths and panic frames by toolchain',
  app,
  'native',
  BUGS,
);
