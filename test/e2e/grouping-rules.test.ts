// Issue #12, item 7: grouping rules written in YAML change how the running service groups, and a
// bad rule is refused at load with its YAML path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { defaultRegistry } from '../../src/components.js';
import { startService, type TestService } from '../support/service.js';

const yaml = (rules: string) => `
receivers:
  http_api: {}
processors:
  validation: {}
  scrubbing: {}
  grouping:
    rules:
${rules}
  issues: {}
exporters:
  duckdb: {}
service:
  pipelines:
    events:
      receivers: [http_api]
      processors: [validation, scrubbing, grouping, issues]
      exporters: [duckdb]
`;

const RULES = `      stacktrace:
        - 'family:jvm module:com.acme.framework.** -group'
        - 'path:**/vendor/** -app'
      fingerprint:
        - 'type:DatabaseError value:"connection*" -> database-connection title="Database unreachable"'
`;

let svc: TestService;
beforeAll(async () => (svc = await startService({ yaml: yaml(RULES) })));
afterAll(() => svc.stop());

async function issueOf(exception: Record<string, unknown>, platform = 'java'): Promise<string> {
  const body = { timestamp: '2026-11-01T10:00:00Z', environment: 'production', release: 'app@1', platform, exception };
  const response = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status).toBe(202);
  const { permalink } = (await response.json()) as { permalink: string };
  return permalink.slice(permalink.lastIndexOf('/') + 1);
}

describe('grouping rules from YAML', () => {
  it('a -group rule hides a framework frame that comes and goes', async () => {
    const frames = (withInterceptor: boolean) => [
      { module: 'com.acme.web.OrderController', function: 'create' },
      ...(withInterceptor ? [{ module: 'com.acme.framework.TxInterceptor', function: 'invoke' }] : []),
      { module: 'com.acme.orders.OrderService', function: 'place' },
    ];
    const a = await issueOf({ type: 'IllegalStateException', value: 'no stock', stacktrace: frames(true) });
    const b = await issueOf({ type: 'IllegalStateException', value: 'no stock', stacktrace: frames(false) });
    expect(a).toBe(b);
  });

  it('a -app rule leaves vendored code out of an in-app stack', async () => {
    const frames = (vendorFunction: string) => [
      { filename: 'src/app/main.js', function: 'start', in_app: true },
      { filename: 'public/vendor/chart.js', function: vendorFunction, in_app: true },
    ];
    expect(await issueOf({ type: 'TypeError', value: 'x', stacktrace: frames('draw') }, 'javascript')).toBe(
      await issueOf({ type: 'TypeError', value: 'x', stacktrace: frames('render') }, 'javascript'),
    );
  });

  it('a fingerprint rule groups matching errors from anywhere, with its title', async () => {
    const a = await issueOf({ type: 'DatabaseError', value: 'connection refused', stacktrace: [{ module: 'com.acme.a.Repo', function: 'load' }] });
    const b = await issueOf({ type: 'DatabaseError', value: 'Connection reset by peer', stacktrace: [{ module: 'com.acme.b.Other', function: 'save' }] });
    const c = await issueOf({ type: 'DatabaseError', value: 'syntax error at "FROM"', stacktrace: [{ module: 'com.acme.a.Repo', function: 'load' }] });
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    const issue = (await (await svc.api(`/v1/issues/${a}?project_id=default`)).json()) as { title: string };
    expect(issue.title).toBe('Database unreachable');
  });

  it('refuses a bad rule at load, at its YAML path', () => {
    const source = parseConfigText(yaml(`      stacktrace:\n        - 'path:**/vendor/** -app'\n        - 'function:foo +banana'\n`), 'rules.yaml');
    const { config, errors } = resolveConfig(source, defaultRegistry(), {});
    expect(config).toBeUndefined();
    expect(errors.map((e) => e.path).join('\n')).toContain('processors.grouping.rules.stacktrace[1]');
  });
});
