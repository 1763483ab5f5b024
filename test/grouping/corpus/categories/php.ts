// PHP/Laravel through sentry-php (`platform: php`): PHP 8.4 names closures after their file and
// line (`{closure:/var/www/releases/20250501…/routes/web.php:42}`, and inside a method
// `{closure:Illuminate\Pipeline\Pipeline::carry():178}`) where 8.2 and 8.3 say `{closure}` (and
// `Illuminate\Pipeline\Pipeline::Illuminate\Pipeline\{closure}`); the release directory changes on
// each deploy, so do the vendor paths under it. Hard negatives: another innermost service method
// under the same route closure, another exception type on the same stack, and a QueryException
// whose PDO cause is a duplicate key in one bug and a refused connection in the other.
import { App } from '../common.js';
import type { Random } from '../random.js';
import { line, sdkCategory, type SdkBug } from '../sdk.js';
import type { CorpusException, CorpusFrame } from '../types.js';

type Php = '8.2' | '8.3' | '8.4';
const app = new App('marketplace', ['3.1.0', '3.1.1', '3.2.0', '3.3.0']);
const root = (release: number, rng: Random) => `/var/www/marketplace/releases/2025050${release + 1}${rng.pick(['0915', '1432'])}${rng.digits(2)}`;

/** A frame: function as PHP names it for a version, the file relative to the project root, in-app unless under vendor/. */
interface PhpSite {
  fn: (php: Php, dir: string, lineNo: number) => string;
  file: string;
  line: number;
}

const call = (name: string, file: string, lineNo: number): PhpSite => ({ fn: () => name, file, line: lineNo });
/** A closure in a file (a route): `{closure:<abs path>:<line>}` in 8.4. */
const fileClosure = (file: string, lineNo: number): PhpSite => ({
  fn: (php, dir, at) => (php === '8.4' ? `{closure:${dir}/${file}:${at}}` : '{closure}'),
  file,
  line: lineNo,
});
/** A closure in a method: `Ns\{closure:Ns\Class::method():<line>}` in 8.4, `Ns\Class::Ns\{closure}` before. */
const methodClosure = (ns: string, cls: string, method: string, file: string, lineNo: number): PhpSite => ({
  fn: (php, _dir, at) => (php === '8.4' ? `${ns}\\{closure:${ns}\\${cls}::${method}():${at}}` : `${ns}\\${cls}::${ns}\\{closure}`),
  file,
  line: lineNo,
});

function render(sites: readonly PhpSite[], php: Php, dir: string, release: number): CorpusFrame[] {
  return sites.map((s) => {
    const vendor = s.file.startsWith('vendor/');
    const lineNo = vendor ? s.line : line(app, release, s.file, s.line);
    return { function: s.fn(php, dir, lineNo), filename: `/${s.file}`, abs_path: `${dir}/${s.file}`, lineno: lineNo, in_app: !vendor };
  });
}

const PIPELINE = 'vendor/laravel/framework/src/Illuminate/Pipeline/Pipeline.php';
const LARAVEL: PhpSite[] = [
  call('Illuminate\\Foundation\\Http\\Kernel::handle', 'vendor/laravel/framework/src/Illuminate/Foundation/Http/Kernel.php', 145),
  call('Illuminate\\Pipeline\\Pipeline::then', PIPELINE, 119),
  methodClosure('Illuminate\\Pipeline', 'Pipeline', 'carry', PIPELINE, 178),
  call('App\\Http\\Middleware\\ResolveTenant::handle', 'app/Http/Middleware/ResolveTenant.php', 31),
  methodClosure('Illuminate\\Pipeline', 'Pipeline', 'carry', PIPELINE, 178),
  call('Illuminate\\Routing\\Router::runRoute', 'vendor/laravel/framework/src/Illuminate/Routing/Router.php', 803),
  call('Illuminate\\Routing\\Route::run', 'vendor/laravel/framework/src/Illuminate/Routing/Route.php', 212),
];

function phpBug(id: string, count: readonly [number, number], build: (php: Php, dir: string, rng: Random, release: number) => CorpusException): SdkBug {
  return {
    id,
    count,
    make: (rng, release) => {
      const php: Php = release < 2 ? rng.pick(['8.2', '8.3'] as const) : rng.pick(['8.3', '8.4'] as const);
      return { exception: build(php, root(release, rng), rng, release), tags: { runtime: `php ${php}.${rng.int(1, 9)}` } };
    },
  };
}

const CART_ROUTE = fileClosure('routes/web.php', 42);

const BUGS: SdkBug[] = [
  phpBug('cart-total-string-price', [9, 16], (php, dir, _rng, release) => ({
    type: 'TypeError',
    value: 'Unsupported operand types: string + int',
    stacktrace: render([...LARAVEL, CART_ROUTE, call('App\\Services\\CartService::total', 'app/Services/CartService.php', 57)], php, dir, release),
  })),
  // The same route closure; another service method fails.
  phpBug('cart-coupon-missing-code', [6, 13], (php, dir, _rng, release) => ({
    type: 'ErrorException',
    value: 'Undefined array key "code"',
    stacktrace: render([...LARAVEL, CART_ROUTE, call('App\\Services\\CartService::applyCoupon', 'app/Services/CartService.php', 81)], php, dir, release),
  })),
  // The same stack as the first bug; another error.
  phpBug('cart-total-division-by-zero', [5, 11], (php, dir, _rng, release) => ({
    type: 'DivisionByZeroError',
    value: 'Division by zero',
    stacktrace: render([...LARAVEL, CART_ROUTE, call('App\\Services\\CartService::total', 'app/Services/CartService.php', 57)], php, dir, release),
  })),
  // Middleware closure in a method of an app class.
  phpBug('tenant-missing', [6, 14], (php, dir, rng, release) => ({
    type: 'App\\Exceptions\\TenantNotFound',
    value: `Tenant ${rng.digits(4)} not found for host ${rng.pick(['acme', 'globex', 'initech'])}.marketplace.example`,
    stacktrace: render(
      [
        ...LARAVEL.slice(0, 3),
        call('App\\Http\\Middleware\\ResolveTenant::handle', 'app/Http/Middleware/ResolveTenant.php', 31),
        methodClosure('App\\Http\\Middleware', 'ResolveTenant', 'handle', 'app/Http/Middleware/ResolveTenant.php', 38),
        call('App\\Tenancy\\TenantRepository::forHost', 'app/Tenancy/TenantRepository.php', 22),
      ],
      php,
      dir,
      release,
    ),
  })),
  ...(
    [
      [
        'seller-signup-duplicate-email',
        (rng: Random) =>
          `SQLSTATE[23000]: Integrity constraint violation: 1062 Duplicate entry '${rng.pick(['ann', 'bo', 'chen'])}${rng.digits(3)}@example.com' for key 'sellers_email_unique'`,
      ],
      ['seller-signup-db-refused', () => 'SQLSTATE[HY000] [2002] Connection refused'],
    ] as const
  ).map(([id, driver]) =>
    phpBug(id, [6, 13], (php, dir, rng, release) => {
      const stack = [
        ...LARAVEL,
        call('App\\Http\\Controllers\\SellerController::store', 'app/Http/Controllers/SellerController.php', 48),
        call('Illuminate\\Database\\Eloquent\\Model::save', 'vendor/laravel/framework/src/Illuminate/Database/Eloquent/Model.php', 1187),
        call('Illuminate\\Database\\Connection::runQueryCallback', 'vendor/laravel/framework/src/Illuminate/Database/Connection.php', 816),
      ];
      const message = driver(rng);
      return {
        type: 'Illuminate\\Database\\QueryException',
        value: `${message} (Connection: mysql, SQL: insert into \`sellers\` (\`email\`, \`updated_at\`, \`created_at\`) values (x${rng.digits(3)}@example.com, 2025-05-0${rng.int(1, 9)} 10:${rng.int(10, 59)}:00, 2025-05-01 10:00:00))`,
        stacktrace: render(stack, php, dir, release),
        cause: {
          type: 'PDOException',
          value: message,
          stacktrace: render(
            [...stack, call('PDOStatement::execute', 'vendor/laravel/framework/src/Illuminate/Database/Connection.php', 580)],
            php,
            dir,
            release,
          ),
        },
      };
    }),
  ),
];

export const php = sdkCategory(
  'php',
  'PHP/Laravel (sentry-php): PHP 8.4 `{closure:<file>:<line>}` vs `{closure}`, release and vendor paths per deploy, QueryException causes',
  app,
  'php',
  BUGS,
);
