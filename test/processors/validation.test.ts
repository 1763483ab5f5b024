import { describe, it } from 'vitest';
import { validateEvent } from '../../processors/validation/validate.js';
import { errorEventInputSchema } from '../../processors/validation/schema.js';
import { validationConfigSchema } from '../../processors/validation/config.js';

describe('bench', () => {
  it('runs', () => {
    const c = validationConfigSchema.parse({});
    const body = JSON.stringify({ id: '0190F5A27C1E7B3A9D4E2F6A8B1C3D5E', timestamp: '2024-02-03T01:02:03.456+02:00', environment: 'production', release: 'web@1.2.3', platform: 'javascript', message: 'boom',
      exception: { type: 'TypeError', value: 'x is undefined', stacktrace: Array.from({ length: 20 }, (_, i) => ({ filename: `src/file${i}.js`, abs_path: `https://example.com/static/js/file${i}.js`, function: `fn${i}`, lineno: i * 10, colno: 5, in_app: i % 2 === 0, module: 'mod' })) },
      breadcrumbs: Array.from({ length: 20 }, (_, i) => ({ timestamp: '2024-02-03T01:02:03.456Z', type: 'http', category: 'xhr', message: `GET /api/${i}`, level: 'info', data: { url: '/x', status_code: 200 } })),
      tags: { browser: 'Chrome', os: 'Linux', n: 3 }, user: { id: 42, email: 'a@b.c' }, request: { url: 'https://x/y', method: 'GET', headers: { 'user-agent': 'Mozilla/5.0' } }, contexts: { browser: { name: 'Chrome', version: '120' } }, sdk: { name: 'sentry.javascript.browser', version: '8.0.0' }, trace_id: 'ABCDEF0123456789ABCDEF0123456789' });
    const raw = JSON.parse(body);
    const bench = (name: string, f: () => unknown) => { for (let i = 0; i < 5000; i++) f(); const n = 50000; const t0 = performance.now(); for (let i = 0; i < n; i++) f(); const us = (performance.now() - t0) * 1000 / n; console.log(name, us.toFixed(1), 'us', Math.round(1e6 / us), '/s'); };
    bench('JSON.parse', () => JSON.parse(body));
    bench('zod', () => errorEventInputSchema.safeParse(raw, { reportInput: true }));
    bench('validateEvent', () => validateEvent(raw, c));
  });
});
import { normalizeEvent } from '../../processors/validation/normalize.js';
describe('post', () => { it('p', () => {
    const c = validationConfigSchema.parse({});
    const body = JSON.stringify({ id: '0190F5A27C1E7B3A9D4E2F6A8B1C3D5E', timestamp: '2024-02-03T01:02:03.456+02:00', environment: 'production', release: 'web@1.2.3', platform: 'javascript', message: 'boom',
      exception: { type: 'TypeError', value: 'x is undefined', stacktrace: Array.from({ length: 20 }, (_, i) => ({ filename: `src/file${i}.js`, abs_path: `https://example.com/static/js/file${i}.js`, function: `fn${i}`, lineno: i * 10, colno: 5, in_app: i % 2 === 0, module: 'mod' })) },
      breadcrumbs: Array.from({ length: 20 }, (_, i) => ({ timestamp: '2024-02-03T01:02:03.456Z', type: 'http', category: 'xhr', message: `GET /api/${i}`, level: 'info', data: { url: '/x', status_code: 200 } })),
      tags: { browser: 'Chrome', os: 'Linux', n: 3 }, user: { id: 42, email: 'a@b.c' }, request: { url: 'https://x/y', method: 'GET', headers: { 'user-agent': 'Mozilla/5.0' } }, contexts: { browser: { name: 'Chrome', version: '120' } }, sdk: { name: 'sentry.javascript.browser', version: '8.0.0' }, trace_id: 'ABCDEF0123456789ABCDEF0123456789' });
    const raw = JSON.parse(body);
    const parsed = errorEventInputSchema.parse(raw);
    const bench = (name: string, f: () => unknown) => { for (let i = 0; i < 5000; i++) f(); const n = 100000; const t0 = performance.now(); for (let i = 0; i < n; i++) f(); const us = (performance.now() - t0) * 1000 / n; console.log(name, us.toFixed(2), 'us'); };
    bench('normalize', () => normalizeEvent(parsed, raw, c));
    bench('keys', () => { let k = 0; for (const f of raw.exception.stacktrace) k += Object.keys(f).length; for (const f of raw.breadcrumbs) k += Object.keys(f).length; return k; });
}); });
