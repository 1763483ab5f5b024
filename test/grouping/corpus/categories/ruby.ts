// Ruby on Rails through sentry-ruby (`platform: ruby`): frame labels that changed across Ruby
// 3.2/3.3/3.4 (`block in apply_discount` → `block in Order#apply_discount`, `rescue in`, singleton
// `Order.find_active`), gems under a bundler path that depends on the image and the Ruby version
// (`/usr/local/bundle/gems/…` vs `vendor/bundle/ruby/3.3.0/gems/…`) and a Capistrano release
// directory per deploy; `NoMethodError` messages reworded by 3.3 and 3.4 (`for nil:NilClass`,
// `for nil`, `'name'` instead of `` `name' ``). Hard negatives: another exception type at the
// same line of the same stack, another innermost function under the same action, and two template
// errors (`ActionView::Template::Error`) whose causes call different missing methods.
import { App } from '../common.js';
import type { Random } from '../random.js';
import { line, sdkCategory, type SdkBug } from '../sdk.js';
import type { CorpusException, CorpusFrame } from '../types.js';

type Ruby = '3.2' | '3.3' | '3.4';
const app = new App('storefront', ['2025.05.01', '2025.05.08', '2025.05.15', '2025.05.22']);
/** Capistrano's release directory: the deploy's timestamp. */
const deployDir = (release: number) => `/var/www/storefront/releases/2025050${release + 1}1${release}4512`;

/** A site: `cls` and `method` (null cls for a top-level method), the block/rescue wrapping, file, line; gem for library code. */
interface RubySite {
  cls: string | null;
  method: string;
  singleton?: boolean;
  wrap?: 'block' | 'block2' | 'rescue';
  file: string;
  line: number;
  gem?: string;
}

const site = (cls: string | null, method: string, file: string, lineNo: number, more: Partial<RubySite> = {}): RubySite => ({
  cls,
  method,
  file,
  line: lineNo,
  ...more,
});

/** The label Ruby prints: 3.4 qualifies methods with their class (`Order#apply_discount`, `Order.find_active`). */
function label(s: RubySite, ruby: Ruby): string {
  const name = ruby === '3.4' && s.cls !== null ? `${s.cls}${s.singleton === true ? '.' : '#'}${s.method}` : s.method;
  switch (s.wrap) {
    case 'block':
      return `block in ${name}`;
    case 'block2':
      return `block (2 levels) in ${name}`;
    case 'rescue':
      return `rescue in ${name}`;
    default:
      return name;
  }
}

function gemRoot(ruby: Ruby, rng: Random, release: number): string {
  return rng.chance(0.5) ? '/usr/local/bundle/gems' : `${deployDir(release)}/vendor/bundle/ruby/${ruby}.0/gems`;
}

function render(sites: readonly RubySite[], ruby: Ruby, rng: Random, release: number): CorpusFrame[] {
  const gems = gemRoot(ruby, rng, release);
  return sites.map((s) => {
    const frame: CorpusFrame = { function: label(s, ruby), lineno: s.gem === undefined ? line(app, release, s.file, s.line) : s.line };
    if (s.gem === undefined) {
      frame.filename = s.file;
      frame.abs_path = `${deployDir(release)}/${s.file}`;
      frame.in_app = true;
    } else {
      frame.filename = s.file;
      frame.abs_path = `${gems}/${s.gem}/lib/${s.file}`;
      frame.in_app = false;
    }
    return frame;
  });
}

/** Rack, Rails' router and the controller's action dispatch (oldest first). */
const RAILS: RubySite[] = [
  site('Puma::Server', 'process_client', 'puma/server.rb', 438, { gem: 'puma-6.4.2' }),
  site('Rails::Engine', 'call', 'rails/engine.rb', 535, { gem: 'railties-7.1.3' }),
  site('ActionDispatch::Journey::Router', 'serve', 'action_dispatch/journey/router.rb', 32, { gem: 'actionpack-7.1.3' }),
  site('ActionController::Metal', 'dispatch', 'action_controller/metal.rb', 227, { gem: 'actionpack-7.1.3' }),
  site('AbstractController::Base', 'process_action', 'abstract_controller/base.rb', 160, { gem: 'actionpack-7.1.3', wrap: 'block' }),
];

function nilMessage(method: string, ruby: Ruby): string {
  if (ruby === '3.2') return `undefined method \`${method}' for nil:NilClass`;
  if (ruby === '3.3') return `undefined method \`${method}' for nil`;
  return `undefined method '${method}' for nil`;
}

function rubyBug(id: string, count: readonly [number, number], build: (ruby: Ruby, rng: Random, release: number) => CorpusException): SdkBug {
  return {
    id,
    count,
    make: (rng, release) => {
      const ruby: Ruby = release < 2 ? rng.pick(['3.2', '3.3'] as const) : rng.pick(['3.3', '3.4'] as const);
      return { exception: build(ruby, rng, release), tags: { runtime: `ruby ${ruby}.${rng.int(0, 6)}` } };
    },
  };
}

const CREATE_ORDER: RubySite[] = [
  ...RAILS,
  site('OrdersController', 'create', 'app/controllers/orders_controller.rb', 24),
  site('Order', 'apply_discount', 'app/models/order.rb', 61),
  site('Array', 'each', 'active_support/core_ext/array.rb', 12, { gem: 'activesupport-7.1.3' }),
];
const DISCOUNT_LINE = site('Order', 'apply_discount', 'app/models/order.rb', 63, { wrap: 'block' });

const BUGS: SdkBug[] = [
  rubyBug('discount-nil-line-item', [9, 16], (ruby, rng, release) => ({
    type: 'NoMethodError',
    value: nilMessage('amount', ruby),
    stacktrace: render([...CREATE_ORDER, DISCOUNT_LINE], ruby, rng, release),
  })),
  // The same line of the same stack: another mistake (a nil price added to an Integer).
  rubyBug('discount-nil-price-coerced', [6, 12], (ruby, rng, release) => ({
    type: 'TypeError',
    value: "nil can't be coerced into Integer",
    stacktrace: render([...CREATE_ORDER, DISCOUNT_LINE], ruby, rng, release),
  })),
  // The same action; the next model method fails.
  rubyBug('order-shipping-address-nil', [6, 14], (ruby, rng, release) => ({
    type: 'NoMethodError',
    value: nilMessage('country_code', ruby),
    stacktrace: render(
      [...RAILS, site('OrdersController', 'create', 'app/controllers/orders_controller.rb', 26), site('Order', 'shipping_zone', 'app/models/order.rb', 88)],
      ruby,
      rng,
      release,
    ),
  })),
  // A finder on the class (`Order.find_active` in 3.4) and a rescue clause that re-raises a domain error.
  rubyBug('payment-capture-card-declined', [7, 14], (ruby, rng, release) => {
    const stack = [
      ...RAILS,
      site('CheckoutsController', 'update', 'app/controllers/checkouts_controller.rb', 41),
      site('PaymentService', 'capture', 'app/services/payment_service.rb', 18, { singleton: true }),
      site('PaymentService', 'capture', 'app/services/payment_service.rb', 27, { singleton: true, wrap: 'rescue' }),
    ];
    return {
      type: 'PaymentService::CaptureFailed',
      value: `capture of order ${rng.digits(6)} failed`,
      stacktrace: render(stack, ruby, rng, release),
      cause: {
        type: 'Stripe::CardError',
        value: `Your card was declined. (Request req_${rng.base62(14)})`,
        stacktrace: render(
          [...stack.slice(0, -1), site('Stripe::APIRequestor', 'execute_request', 'stripe/api_requestor.rb', 310, { gem: 'stripe-10.9.0' })],
          ruby,
          rng,
          release,
        ),
      },
    };
  }),
  // The same rescue clause; the cause is a timeout, not a declined card.
  rubyBug('payment-capture-timeout', [5, 12], (ruby, rng, release) => {
    const stack = [
      ...RAILS,
      site('CheckoutsController', 'update', 'app/controllers/checkouts_controller.rb', 41),
      site('PaymentService', 'capture', 'app/services/payment_service.rb', 18, { singleton: true }),
      site('PaymentService', 'capture', 'app/services/payment_service.rb', 27, { singleton: true, wrap: 'rescue' }),
    ];
    return {
      type: 'PaymentService::CaptureFailed',
      value: `capture of order ${rng.digits(6)} failed`,
      stacktrace: render(stack, ruby, rng, release),
      cause: {
        type: 'Net::ReadTimeout',
        value: `Net::ReadTimeout with #<TCPSocket:(closed)>`,
        stacktrace: render(
          [...stack.slice(0, -1), site('Net::BufferedIO', 'rbuf_fill', 'net/protocol.rb', 229, { gem: 'net-protocol-0.2.2' })],
          ruby,
          rng,
          release,
        ),
      },
    };
  }),
  // Rails wraps an error raised while rendering: the cause's message is what tells two apart.
  ...(['name', 'email'] as const).map((method) =>
    rubyBug(`invoice-template-nil-customer-${method}`, [6, 13], (ruby, rng, release) => {
      const stack = [
        ...RAILS,
        site('InvoicesController', 'show', 'app/controllers/invoices_controller.rb', 12),
        site('ActionView::Template', 'render', 'action_view/template.rb', 262, { gem: 'actionview-7.1.3' }),
        site(null, `_app_views_invoices_show_html_erb___${rng.digits(19)}_${rng.digits(5)}`, 'app/views/invoices/show.html.erb', 9),
      ];
      return {
        type: 'ActionView::Template::Error',
        value: nilMessage(method, ruby),
        stacktrace: render(stack, ruby, rng, release),
        cause: { type: 'NoMethodError', value: nilMessage(method, ruby), stacktrace: render(stack, ruby, rng, release) },
      };
    }),
  ),
  // A Sidekiq job in nested blocks.
  rubyBug('export-job-missing-bucket', [6, 12], (ruby, rng, release) => ({
    type: 'Aws::S3::Errors::NoSuchBucket',
    value: 'The specified bucket does not exist',
    stacktrace: render(
      [
        site('Sidekiq::Processor', 'process', 'sidekiq/processor.rb', 202, { gem: 'sidekiq-7.2.4' }),
        site('ExportJob', 'perform', 'app/jobs/export_job.rb', 9),
        site('ExportJob', 'perform', 'app/jobs/export_job.rb', 14, { wrap: 'block2' }),
        site('Exports::Uploader', 'upload', 'app/lib/exports/uploader.rb', 33),
        site('Aws::S3::Client', 'put_object', 'aws-sdk-core/seahorse/client/request.rb', 72, { gem: 'aws-sdk-core-3.191.0' }),
      ],
      ruby,
      rng,
      release,
    ),
  })),
];

export const ruby = sdkCategory(
  'ruby',
  'Ruby/Rails (sentry-ruby): `block in`/`rescue in`/`Class#method` labels across Ruby 3.2–3.4, gem and release paths, reworded NoMethodError, template-error causes',
  app,
  'ruby',
  BUGS,
);
