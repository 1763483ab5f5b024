// Elixir frames, version 3: the web server under Phoenix (Cowboy and Ranch, or Bandit and Thousand
// Island) and OTP's process plumbing are not the app's code and change when the server does;
// Phoenix numbers the endpoint's overridable `call` (`"call (overridable 3)"/2`); an anonymous
// function is `-place/1-fun-0-/1` as the VM names it or `anonymous fn/1 in Shop.Orders.place/1` as
// Elixir formats it, depending on the SDK's version.
import { memoize } from '../memo.js';

const LONGEST = 512;
const SERVER_MODULE = /^(?::(?:cowboy|ranch|proc_lib|gen_server|gen|gen_statem)\b|(?:Plug\.Cowboy|Bandit|ThousandIsland)(?:\.|$))/;
const OVERRIDABLE = / \(overridable \d{1,4}\)(?=\/\d{1,4}$)/;
/** `-place/1-fun-0-/1` */
const ERLANG_FUN = /^-([^/]{1,200}\/\d{1,4})-(?:fun|lc|lbc)-\d{1,6}-\/\d{1,4}$/;
/** `anonymous fn/1 in Shop.Orders.place/1` */
const ELIXIR_FUN = /^anonymous fn\/\d{1,4} in /;

export function isElixirServerModule(module: string): boolean {
  return SERVER_MODULE.test(module);
}

/** `call (overridable 3)/2` -> `call/2`; both spellings of an anonymous function in place/1 -> `place/1{fn}`. */
function normalizeElixirFunctionNow(name: string): string {
  const fn = name.trim().slice(0, LONGEST).replace(OVERRIDABLE, '');
  const erlang = ERLANG_FUN.exec(fn);
  if (erlang) return `${erlang[1]}{fn}`;
  const elixir = ELIXIR_FUN.exec(fn);
  if (!elixir) return fn;
  // The enclosing function is the last segment of `Shop.Orders.place/1` (its module is the frame's).
  const mfa = fn.slice(elixir[0].length);
  const slash = mfa.lastIndexOf('/');
  return `${mfa.slice(mfa.lastIndexOf('.', slash) + 1)}{fn}`;
}

export const normalizeElixirFunction: (name: string) => string = memoize(normalizeElixirFunctionNow);
