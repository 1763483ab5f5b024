// Elixir/Phoenix through sentry-elixir (`platform: elixir`): the web server below Phoenix is
// Cowboy (`:cowboy_stream_h`, `Plug.Cowboy.Handler`) or, after a switch, Bandit
// (`Bandit.Pipeline`, `ThousandIsland.Handler`); the endpoint's overridable `call` is numbered by
// Phoenix (`"call (overridable 3)"/2`); anonymous functions are `-place/1-fun-0-/1` or `anonymous
// fn/1 in Shop.Orders.place/1` by SDK version; messages reworded between Elixir versions (KeyError
// shows the map on its own lines and adds a hint since 1.16). Hard negatives: another innermost
// function, another exception type on the same stack, a LiveView event through the same endpoint,
// and a frameless KeyError about another key.
import { App } from '../common.js';
import type { Random } from '../random.js';
import { sdkCategory, type SdkBug } from '../sdk.js';
import type { CorpusException, CorpusFrame } from '../types.js';

type Server = 'cowboy' | 'bandit';
const app = new App('shop_ex', ['1.8.0', '1.8.1', '1.9.0', '1.10.0']);

interface ExSite {
  module: string;
  fn: string;
  arity: number;
  /** An anonymous function inside `fn`. */
  anon?: number;
  file: string;
  line: number;
}
const e = (module: string, fn: string, arity: number, file: string, lineNo: number, anon?: number): ExSite => ({ module, fn, arity, file, line: lineNo, anon });

function render(sites: readonly ExSite[], newSdk: boolean, release: number): CorpusFrame[] {
  return sites.map((s) => {
    const ours = s.module.startsWith('Shop');
    let fn = `${s.fn}/${s.arity}`;
    if (s.anon !== undefined) fn = newSdk ? `anonymous fn/${s.anon} in ${s.module}.${s.fn}/${s.arity}` : `-${s.fn}/${s.arity}-fun-0-/${s.anon}`;
    return { module: s.module, function: fn, filename: s.file, lineno: s.line + (ours ? app.shift(release, s.file) : 0), in_app: ours };
  });
}

const SERVER: Record<Server, ExSite[]> = {
  cowboy: [
    e(':proc_lib', 'init_p_do_apply', 3, 'proc_lib.erl', 241),
    e(':cowboy_stream_h', 'request_process', 3, '/app/deps/cowboy/src/cowboy_stream_h.erl', 327),
    e(':cowboy_stream_h', 'execute', 3, '/app/deps/cowboy/src/cowboy_stream_h.erl', 306),
    e('Plug.Cowboy.Handler', 'init', 2, 'lib/plug/cowboy/handler.ex', 11),
  ],
  bandit: [
    e('ThousandIsland.Handler', 'handle_continue', 2, 'lib/thousand_island/handler.ex', 417),
    e('Bandit.HTTP1.Handler', 'handle_data', 3, 'lib/bandit/http1/handler.ex', 12),
    e('Bandit.Pipeline', 'run', 4, 'lib/bandit/pipeline.ex', 36),
    e('Bandit.Pipeline', 'call_plug!', 2, 'lib/bandit/pipeline.ex', 120),
  ],
};
const ENDPOINT = (phoenix: string): ExSite[] => [
  e('ShopWeb.Endpoint', `call (overridable ${phoenix === '1.7.10' ? 3 : 4})`, 2, 'lib/shop_web/endpoint.ex', 1),
  e('ShopWeb.Endpoint', 'plug_builder_call', 2, 'lib/shop_web/endpoint.ex', 1),
  e('Phoenix.Router', '__call__', 5, 'lib/phoenix/router.ex', 484),
];
const ORDER_CREATE = (phoenix: string): ExSite[] => [
  ...ENDPOINT(phoenix),
  e('ShopWeb.OrderController', 'create', 2, 'lib/shop_web/controllers/order_controller.ex', 18),
  e('Shop.Orders', 'place', 1, 'lib/shop/orders.ex', 40),
  e('Enum', 'reduce', 3, 'lib/enum.ex', 2510),
  e('Shop.Orders', 'place', 1, 'lib/shop/orders.ex', 44, 2),
];

function exBug(
  id: string,
  count: readonly [number, number],
  build: (phoenix: string, rng: Random) => Omit<CorpusException, 'stacktrace'> & { sites?: ExSite[] },
): SdkBug {
  return {
    id,
    count,
    make: (rng, release) => {
      const server: Server = release < 2 ? 'cowboy' : rng.pick(['cowboy', 'bandit'] as const);
      const phoenix = release < 2 ? '1.7.10' : '1.7.14';
      const newSdk = rng.chance(0.5);
      const { sites, ...exception } = build(phoenix, rng);
      return {
        exception: { ...exception, ...(sites && { stacktrace: render([...SERVER[server], ...sites], newSdk, release) }) },
        tags: { server, phoenix, elixir: release < 2 ? '1.15' : rng.pick(['1.15', '1.17']) },
      };
    },
  };
}

/** Elixir 1.16 put the map on its own lines and added a hint. */
function keyError(key: string, map: string, rng: Random): string {
  return rng.chance(0.5)
    ? `key :${key} not found in: ${map}`
    : `key :${key} not found in:\n\n    ${map}\n\nIf you are using the dot syntax, such as map.field, make sure the left-hand side of the dot is a map`;
}

const BUGS: SdkBug[] = [
  exBug('order-place-missing-price', [9, 16], (phoenix, rng) => ({
    type: 'KeyError',
    value: keyError('price', `%{id: ${rng.digits(5)}, qty: ${rng.int(1, 5)}}`, rng),
    sites: [...ORDER_CREATE(phoenix), e('Shop.Orders', 'line_total', 1, 'lib/shop/orders.ex', 71)],
  })),
  // The same stack: arithmetic on a nil price.
  exBug('order-place-nil-price', [6, 12], (phoenix) => ({
    type: 'ArithmeticError',
    value: 'bad argument in arithmetic expression',
    sites: [...ORDER_CREATE(phoenix), e('Shop.Orders', 'line_total', 1, 'lib/shop/orders.ex', 71)],
  })),
  // The same request; the tax lookup fails.
  exBug('order-place-no-tax-clause', [6, 13], (phoenix, rng) => ({
    type: 'FunctionClauseError',
    value: `no function clause matching in Shop.Tax.rate/${rng.pick([2])}`,
    sites: [...ORDER_CREATE(phoenix), e('Shop.Tax', 'rate', 2, 'lib/shop/tax.ex', 9)],
  })),
  // A LiveView event through the same endpoint.
  exBug('checkout-live-coupon-match', [6, 13], (phoenix, rng) => ({
    type: 'MatchError',
    value: `no match of right hand side value: {:error, :expired, ${rng.digits(4)}}`,
    sites: [
      ...ENDPOINT(phoenix),
      e('Phoenix.LiveView.Channel', 'view_handle_event', 3, 'lib/phoenix_live_view/channel.ex', 463),
      e('ShopWeb.CheckoutLive', 'handle_event', 3, 'lib/shop_web/live/checkout_live.ex', 52),
      e('Shop.Coupons', 'redeem', 2, 'lib/shop/coupons.ex', 30),
    ],
  })),
  // Crash reports from a GenServer, logged without a stack trace: only the message tells them apart.
  ...(['sku', 'warehouse_id'] as const).map((key) =>
    exBug(`inventory-sync-missing-${key.replace('_', '-')}`, [6, 12], (_phoenix, rng) => ({
      type: 'KeyError',
      value: keyError(key, `%{id: ${rng.digits(4)}, qty: ${rng.int(0, 90)}}`, rng),
    })),
  ),
];

export const elixir = sdkCategory(
  'elixir',
  'Elixir/Phoenix (sentry-elixir): Cowboy vs Bandit frames, numbered overridable endpoint calls, anonymous-function spellings, KeyError reworded by Elixir 1.16',
  app,
  'elixir',
  BUGS,
);
