// Uploaded debug files (POST /v1/sourcemaps): source maps and minified sources, ProGuard/R8
// mapping files, Breakpad symbol files. The catalog keeps their metadata per bundle (project,
// release, dist); their bytes are stored once per content (sha256). The symbolication processor
// finds them through ArtifactLookup.
import type { Dataset } from '../engine/item.js';

export type ArtifactType = 'source_map' | 'minified_source' | 'proguard' | 'breakpad';
export const ARTIFACT_TYPES: readonly ArtifactType[] = ['source_map', 'minified_source', 'proguard', 'breakpad'];

export interface ArtifactFile {
  bundle_id: string;
  /** As uploaded: a URL, a `~/path` (any scheme and host), or a file name. */
  name: string;
  type: ArtifactType;
  size: number;
  sha256: string;
  /**
   * Lower-case. Source maps and minified sources: the `debugId` (UUID form); ProGuard: the
   * mapping's UUID; Breakpad: the MODULE line's id (33 hex digits: GUID and age).
   */
  debug_id: string | null;
  /** Minified sources: their `//# sourceMappingURL=` (relative to the file, or absolute). */
  source_mapping_url: string | null;
}

/** Where an event's frames look for files: its project, release and dist. */
export interface ArtifactScope {
  dataset: Dataset;
  projectId: string;
  release: string;
  /** null: files uploaded without a dist. */
  dist: string | null;
}

export interface ArtifactLookup {
  /** Files of the project (any release: a debug id names one build) with this debug id. */
  byDebugId(scope: ArtifactScope, debugId: string, types: readonly ArtifactType[]): Promise<ArtifactFile[]>;
  /**
   * Files of the scope's release and dist whose stored name equals one of `names` exactly, in the
   * order of `names` (the caller passes candidates best first: the URL, without its query, as
   * `~/path`, the file name).
   */
  byNames(scope: ArtifactScope, names: readonly string[], types: readonly ArtifactType[]): Promise<ArtifactFile[]>;
  /** A file's bytes. */
  read(file: ArtifactFile): Promise<Buffer>;
  /**
   * Grows whenever files are added or removed in this process (an upload, a deletion, retention):
   * a cache of lookups answered before a change is stale. Absent: no such signal, rely on time.
   */
  version?(): number;
  /**
   * Whether the project has any file at all, answered without waiting when known (undefined: not
   * known yet). A project nobody uploads for — most of them — then costs symbolication nothing.
   */
  projectHasFiles?(dataset: Dataset, projectId: string): boolean | undefined;
  /**
   * Whether any file was uploaded for the scope's project, release and dist: a frame no file
   * matched then says why it stayed raw. Absent: not known (treated as no).
   */
  scopeHasFiles?(scope: ArtifactScope): Promise<boolean>;
}
