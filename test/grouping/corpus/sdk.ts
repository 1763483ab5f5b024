// What the categories of round three (the SDKs beyond JavaScript, Java, Python, Go and native)
// share: a bug is an id, a count and a way to build one occurrence's exception for a release; the
// category draws the release and wraps the exception in the SDK's envelope (its `platform`).
import { type App, envelope, occurrences } from './common.js';
import type { Random } from './random.js';
import type { Category, CorpusEntry, CorpusException } from './types.js';

export interface SdkOccurrence {
  exception: CorpusException;
  message?: string;
  /** What tells occurrences apart at a glance in `--explain` (runtime and framework versions). */
  tags?: Record<string, string>;
  /** When one category holds apps of several SDKs (the message category). */
  platform?: string;
}

export interface SdkBug {
  id: string;
  count: readonly [number, number];
  /** An app other than the category's (a second service of the same stack). */
  app?: App;
  make: (rng: Random, release: number) => SdkOccurrence;
}

export function sdkCategory(name: string, description: string, app: App, platform: string, bugs: readonly SdkBug[]): Category {
  return {
    name,
    description,
    build: (): CorpusEntry[] =>
      bugs.flatMap((bug) =>
        occurrences(name, bug.id, bug.count, (rng) => {
          const on = bug.app ?? app;
          const release = on.pickRelease(rng);
          const made = bug.make(rng, release);
          return envelope(rng, {
            release: on.release(release),
            platform: made.platform ?? platform,
            exception: made.exception,
            ...(made.message !== undefined && { message: made.message }),
            ...(made.tags !== undefined && { tags: made.tags }),
          });
        }),
      ),
  };
}

/** Line numbers move with each release (the same code, shifted). */
export function line(app: App, release: number, file: string, base: number): number {
  return base + app.shift(release, file);
}
