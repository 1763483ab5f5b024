// Shared setup for the symbolication tests: a processor over an in-memory artifact store, and
// events to run through it.
import { afterEach } from 'vitest';
import type { Item, Tenant } from '../../../src/engine/item.js';
import type { ArtifactScope } from '../../../src/records/artifact.js';
import type { ErrorEvent, StackFrame } from '../../../src/records/event.js';
import { symbolicationConfigSchema, type SymbolicationConfig } from '../../../processors/symbolication/config.js';
import { SymbolicationProcessor } from '../../../processors/symbolication/processor.js';
import { InMemoryArtifacts } from '../../support/artifacts.js';
import type { Bundle } from './fixture.js';

export const TENANT: Tenant = { orgId: 'org_1', projectId: 'proj_web', dataset: 'live' };
export const RELEASE = 'web@1.0.0';
export const SCOPE: ArtifactScope = { dataset: 'live', projectId: 'proj_web', release: RELEASE, dist: null };

let seq = 0;
export function makeEvent(frames: StackFrame[], extra: Partial<ErrorEvent> = {}): ErrorEvent {
  seq++;
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    timestamp: '2026-01-01T00:00:00.000Z',
    environment: 'production',
    release: RELEASE,
    level: 'error',
    exception: { type: 'Error', value: 'boom', stacktrace: frames },
    project_id: TENANT.projectId,
    received_at: '2026-01-01T00:00:01.000Z',
    processing_errors: [],
    ...extra,
  };
}

export function itemOf(event: ErrorEvent, tenant: Tenant = TENANT): Item<ErrorEvent> {
  return { data: event, tenant, receivedAt: 0, size: 1024 };
}

/** A processor over `artifacts`; the caller shuts it down (it owns a worker pool). */
export function newProcessor(artifacts: InMemoryArtifacts, config: Partial<SymbolicationConfig> = {}): SymbolicationProcessor {
  return new SymbolicationProcessor(symbolicationConfigSchema.parse(config), { id: 'symbolication', artifacts });
}

/** A maker of processors that are shut down after each test of the file that calls this. */
export function processorsShutDownAfterEach(): (artifacts: InMemoryArtifacts, config?: Partial<SymbolicationConfig>) => SymbolicationProcessor {
  const made: SymbolicationProcessor[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((p) => p.shutdown()));
  });
  return (artifacts, config = {}) => {
    const p = newProcessor(artifacts, config);
    made.push(p);
    return p;
  };
}

/** A store with the app's minified file and map under their `~/` names (as `sentry-cli` uploads them). */
export function uploadedApp(app: Bundle, options: { minified?: boolean; map?: string } = {}): InMemoryArtifacts {
  const artifacts = new InMemoryArtifacts();
  if (options.minified !== false) artifacts.add(SCOPE, { name: '~/static/js/app.min.js', type: 'minified_source', content: app.code });
  artifacts.add(SCOPE, { name: '~/static/js/app.min.js.map', type: 'source_map', content: options.map ?? app.map });
  return artifacts;
}

/** Runs events through the processor and returns them. */
export async function symbolicate(processor: SymbolicationProcessor, ...events: ErrorEvent[]): Promise<ErrorEvent[]> {
  await processor.process(events.map((e) => itemOf(e)));
  return events;
}

/** The frames as a client would send them: no in_app unless asked. */
export function withoutInApp(frames: StackFrame[]): StackFrame[] {
  return frames.map(({ in_app: _inApp, ...rest }) => rest);
}

export { InMemoryArtifacts };
