// Helpers for replay tests: rrweb-shaped events and the three POST /v1/replays body forms.
import { gzipSync, deflateSync } from 'node:zlib';
import type { TestService } from './service.js';

export function rrwebEvents(start: number, count = 5, options: { fullSnapshot?: boolean; href?: string; text?: string } = {}): unknown[] {
  const events: unknown[] = [];
  const full = options.fullSnapshot ?? true;
  if (full) {
    events.push({ type: 4, data: { href: options.href ?? 'https://shop.example/checkout', width: 1280, height: 720 }, timestamp: start });
    events.push({
      type: 2,
      data: { node: { type: 0, childNodes: [{ type: 2, tagName: 'html', attributes: {}, childNodes: [], id: 2 }], id: 1 }, initialOffset: { top: 0, left: 0 } },
      timestamp: start + 1,
    });
  }
  // Text changes (mutations), not input events: the scrubbing processor masks typed input by default.
  for (let i = events.length; i < count; i++)
    events.push({
      type: 3,
      data: { source: 0, texts: [{ id: 2, value: options.text ?? `shown ${i}` }], attributes: [], removes: [], adds: [] },
      timestamp: start + i * 100,
    });
  return events;
}

export type BodyForm = 'events' | 'data-gzip' | 'data-zlib' | 'raw';

/** Posts one chunk in the given form; `fields` are the JSON body's other fields (or the raw form's query). */
export function postChunk(svc: TestService, form: BodyForm, fields: Record<string, unknown>, events: unknown, key?: string): Promise<Response> {
  const json = JSON.stringify(events);
  if (form === 'raw') {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) query.set(name, Array.isArray(value) ? value.join(',') : String(value));
    return svc.api(`/v1/replays?${query}`, {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(json),
    });
  }
  const body = form === 'events' ? { ...fields, events } : { ...fields, data: (form === 'data-gzip' ? gzipSync(json) : deflateSync(json)).toString('base64') };
  return svc.api('/v1/replays', { method: 'POST', key, body: JSON.stringify(body) });
}

/** An rrweb full snapshot (event type 2) of a document whose body (node id 2) holds `children` (serialized nodes). */
export function fullSnapshot(timestamp: number, children: unknown[]): Record<string, unknown> {
  return {
    type: 2,
    timestamp,
    data: {
      node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'body', attributes: {}, childNodes: children }] },
      initialOffset: { top: 0, left: 0 },
    },
  };
}
