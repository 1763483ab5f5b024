// Why a JavaScript frame stayed as received: the `missing_source_map` note naming the file looked
// for and every candidate name tried. The one place that words it and decides how often it is
// said, so every path that leaves frames raw (no map by debug id, by URL, by `~/` path …) reports
// the same way.
//
// How often: frames nothing promised a map for (a file on disk or in node_modules, no debug id, no
// uploaded minified source) stay quiet — server code run as written — unless the event's release
// (and dist) has uploads and the file is the team's own built JavaScript (`.js`, `.mjs`, `.cjs`
// outside node_modules): then the team meant to symbolicate it, and every such frame gets its own
// note (the issue page shows it beside the frame), as does every frame of a file that was expected
// to have a map in such a release. Otherwise the note is said once per file, at its first frame,
// with the number of frames.
import type { ArtifactFile } from '../../src/records/artifact.js';
import type { EventJob } from './context.js';

export interface RawFrameFacts {
  /** The frame's file (abs_path, else filename). */
  path: string;
  debugId?: string;
  /** The minified file found for it, when one was (but not its map). */
  minified?: ArtifactFile;
  /** Every name looked up, best first. */
  tried: readonly string[];
  /** The event's release and dist have uploads (and the file is the team's built JavaScript). */
  scopeHasUploads: boolean;
}

export interface MissingMap {
  missing: string;
  subject: string;
  /** One note per frame (the scope has uploads), not one per file. */
  everyFrame: boolean;
}

/** The note for frames with no map, or undefined when they stay quiet. */
export function missingMap(facts: RawFrameFacts, expected: boolean): MissingMap | undefined {
  if (!expected && !facts.scopeHasUploads) return undefined;
  const { path, debugId, minified, tried } = facts;
  const parts = [`no source map for ${path}`];
  if (debugId !== undefined) parts.push(`debug id ${debugId}`);
  if (minified?.source_mapping_url)
    parts.push(`${minified.name} names ${minified.source_mapping_url.startsWith('data:') ? 'an inline map' : minified.source_mapping_url}`);
  if (tried.length > 0) parts.push(`tried ${tried.join(', ')}`);
  if (facts.scopeHasUploads) parts.push('the release has uploads, none of them matched');
  return { missing: parts.join('; '), subject: debugId ?? path, everyFrame: facts.scopeHasUploads };
}

/** Notes the frames at `indexes` (raw frame indexes of the job) as left raw for `why`. */
export function noteRawFrames(job: EventJob, indexes: readonly number[], why: MissingMap): void {
  for (const i of indexes) job.errors.add('missing_source_map', i, why.everyFrame ? `${why.subject}\0${i}` : why.subject, why.missing);
}
