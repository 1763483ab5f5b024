// Which requests the HTTP host serves straight from node:http (src/http/lean-routes.ts): the same
// ones the router would give the route, with the same parameters.
import { describe, expect, it } from 'vitest';
import { LeanRoutes } from '../../src/http/lean-routes.js';

describe('LeanRoutes', () => {
  const events = async () => new Response('events');
  const envelope = async () => new Response('envelope');
  const routes = new LeanRoutes();
  routes.add('POST', '/v1/events', events);
  routes.add('POST', '/api/:ingest_id/envelope/', envelope);

  it('matches exact paths by method', () => {
    expect(routes.match('POST', '/v1/events')).toEqual({ handle: events, route: '/v1/events' });
    expect(routes.match('GET', '/v1/events')).toBeUndefined();
    expect(routes.match('POST', '/v1/events/x')).toBeUndefined();
  });

  it('matches parameter segments with and without the trailing slash, never an empty one', () => {
    expect(routes.match('POST', '/api/42/envelope/')).toEqual({ handle: envelope, route: '/api/:ingest_id/envelope/', params: { ingest_id: '42' } });
    expect(routes.match('POST', '/api/42/envelope')?.params).toEqual({ ingest_id: '42' });
    expect(routes.match('POST', '/api/%34%32/envelope/')?.params).toEqual({ ingest_id: '%34%32' }); // decoded by the route, as h3's are
    for (const path of ['/api//envelope/', '/api/42/store/', '/api/42/envelope/x', '/api/envelope/', '/x/42/envelope/', '/'])
      expect([path, routes.match('POST', path)]).toEqual([path, undefined]);
    expect(routes.match('OPTIONS', '/api/42/envelope/')).toBeUndefined();
    expect(routes.size).toBe(2);
  });

  it('refuses wildcards', () => {
    expect(() => routes.add('POST', '/v1/**', events)).toThrow(/wildcard/);
  });
});
