// Assertions shared by the end-to-end tests.
import { expect } from 'vitest';

export interface Ack {
  id: string;
  status: string;
  permalink: string;
}

export interface ErrorBody {
  error: { code: string; message: string; details: Array<{ path: string; message: string }>; request_id: string };
}

/** Asserts the status, the one error body (and nothing else in it), X-Request-Id, no stack trace; returns the body. */
export async function expectError(res: Response, status: number, code: string): Promise<ErrorBody> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text) as ErrorBody;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(Array.isArray(body.error.details)).toBe(true);
  expect(typeof body.error.request_id).toBe('string');
  expect(body.error.request_id.length).toBeGreaterThan(0);
  expect(res.headers.get('x-request-id')).toBe(body.error.request_id);
  expect(text).not.toMatch(/\n\s+at /); // never a stack trace in a response
  return body;
}

/** POSTs `body` as JSON to the service with its live key, asserts a 2xx and returns the parsed answer. */
export async function postJson(
  svc: { api(path: string, init?: RequestInit): Promise<Response> },
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const res = await svc.api(path, { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  expect(res.status, text).toBeLessThan(300);
  return JSON.parse(text) as Record<string, unknown>;
}
