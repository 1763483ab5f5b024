// A Sentry SDK's error event payload as the SDKs send it (exception values with a cause, tags as
// pairs, breadcrumbs under values, extra), numbered so that each has its own event id.

const hex = (n: number) => n.toString(16).padStart(32, '0');
const now = () => Date.now() / 1000;

export function sentryEvent(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_id: hex(n),
    timestamp: now(),
    platform: 'node',
    level: 'error',
    release: 'shop@2.0.0',
    exception: {
      values: [
        {
          type: 'Error',
          value: 'root cause',
          mechanism: { type: 'chained', handled: true },
          stacktrace: { frames: [{ filename: 'db.js', function: 'query', lineno: 3 }] },
        },
        {
          type: 'TypeError',
          value: `outer ${n}`,
          mechanism: { type: 'onuncaughtexception', handled: false },
          stacktrace: {
            frames: [
              { filename: 'app.js', function: 'main', lineno: 1, colno: 2, in_app: true },
              { filename: 'cart.js', function: 'total', lineno: 9 },
            ],
          },
        },
      ],
    },
    tags: [['route', '/cart']],
    user: { id: 42, email: 'ada@example.com', geo: { city: 'x' } },
    breadcrumbs: { values: [{ timestamp: now() - 1, category: 'http', message: 'GET /', level: 'info' }] },
    extra: { basket: 3 },
    ...extra,
  };
}
