// An in-memory ArtifactLookup for tests: files added by hand, looked up as the contract says
// (src/records/artifact.ts): byDebugId across the project's releases, byNames within the scope's
// release and dist in the order of the names. It counts calls and reads, and can hold reads at a
// gate (for concurrency tests).
import { createHash } from 'node:crypto';
import type { ArtifactFile, ArtifactLookup, ArtifactScope, ArtifactType } from '../../src/records/artifact.js';

export interface AddArtifact {
  name: string;
  type: ArtifactType;
  content: string | Buffer;
  /** Default: a source map's `debugId`, else null. */
  debug_id?: string | null;
  /** Default: a minified source's `//# sourceMappingURL=`, else null. */
  source_mapping_url?: string | null;
}

interface Stored {
  file: ArtifactFile;
  scope: ArtifactScope;
  bytes: Buffer;
}

const SOURCE_MAPPING_URL = /\/\/[#@] sourceMappingURL=(\S+)\s*$/;

export class InMemoryArtifacts implements ArtifactLookup {
  private readonly stored: Stored[] = [];
  private nextBundle = 1;
  readonly calls = { byDebugId: 0, byNames: 0, read: 0 };
  /** Reads by file name. */
  readonly reads = new Map<string, number>();
  /** While set, read() waits for it (only for the files `gated` accepts, when that is set too). */
  gate: Promise<void> | undefined;
  gated: ((file: ArtifactFile) => boolean) | undefined;
  /** When set, every lookup fails with it. */
  failure: Error | undefined;

  add(scope: ArtifactScope, artifact: AddArtifact): ArtifactFile {
    const bytes = Buffer.isBuffer(artifact.content) ? artifact.content : Buffer.from(artifact.content, 'utf8');
    let debugId = artifact.debug_id;
    if (debugId === undefined) {
      debugId = null;
      if (artifact.type === 'source_map') {
        try {
          const json = JSON.parse(bytes.toString('utf8')) as { debugId?: string };
          if (typeof json.debugId === 'string') debugId = json.debugId.toLowerCase();
        } catch {
          // not JSON: a malformed map, on purpose
        }
      }
    }
    let url = artifact.source_mapping_url;
    if (url === undefined) url = artifact.type === 'minified_source' ? (SOURCE_MAPPING_URL.exec(bytes.toString('utf8'))?.[1] ?? null) : null;
    const file: ArtifactFile = {
      bundle_id: `bundle_${this.nextBundle++}`,
      name: artifact.name,
      type: artifact.type,
      size: bytes.byteLength,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      debug_id: debugId,
      source_mapping_url: url,
    };
    this.stored.push({ file, scope, bytes });
    return file;
  }

  async byDebugId(scope: ArtifactScope, debugId: string, types: readonly ArtifactType[]): Promise<ArtifactFile[]> {
    this.calls.byDebugId++;
    if (this.failure) throw this.failure;
    return this.stored.filter((s) => sameProject(s.scope, scope) && s.file.debug_id === debugId && types.includes(s.file.type)).map((s) => s.file);
  }

  async scopeHasFiles(scope: ArtifactScope): Promise<boolean> {
    return this.stored.some((s) => sameProject(s.scope, scope) && s.scope.release === scope.release && s.scope.dist === scope.dist);
  }

  async byNames(scope: ArtifactScope, names: readonly string[], types: readonly ArtifactType[]): Promise<ArtifactFile[]> {
    this.calls.byNames++;
    if (this.failure) throw this.failure;
    const inScope = this.stored.filter(
      (s) => sameProject(s.scope, scope) && s.scope.release === scope.release && s.scope.dist === scope.dist && types.includes(s.file.type),
    );
    return names.flatMap((name) => inScope.filter((s) => s.file.name === name).map((s) => s.file));
  }

  async read(file: ArtifactFile): Promise<Buffer> {
    this.calls.read++;
    this.reads.set(file.name, (this.reads.get(file.name) ?? 0) + 1);
    if (this.gate && (this.gated === undefined || this.gated(file))) await this.gate;
    const stored = this.stored.find((s) => s.file === file || s.file.sha256 === file.sha256);
    if (!stored) throw new Error(`no such file: ${file.name}`);
    return stored.bytes;
  }
}

function sameProject(a: ArtifactScope, b: ArtifactScope): boolean {
  return a.dataset === b.dataset && a.projectId === b.projectId;
}
