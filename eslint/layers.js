// The layers of the tree, lowest first (docs/architecture.md, "Layers and fences"). A file belongs to
// the layer whose matching glob is the most specific (the longest part before its first `*`), its
// path taken from the repository root. `mayImport` lists
// the OTHER layers it may import from; a layer may always import from itself, except that in an
// `isolated` layer each unit (the folder the glob's `*` names, e.g. processors/validation) imports
// no other unit's files. Files in no layer (test/, bench/, scripts/) are not fenced.
//
// Both the target layout and today's paths are listed: src/api and src/web are frontends until they
// move to frontends/, src/storage and the Kafka control plane are extensions until they move to
// extensions/, and the service composition (src/service.ts, src/components.ts, src/cli) is the
// composition root until it moves to service/.

/** @typedef {{ layer: string, globs: string[], mayImport: string[], isolated?: boolean }} Layer */

/** @type {Layer[]} */
export const LAYERS = [
  {
    layer: 'core',
    // engine, config, http, telemetry, net, records, auth, the Kafka client: everything under src/
    // that no more specific glob below claims.
    globs: ['src/**'],
    mayImport: [],
  },
  {
    layer: 'extensions',
    globs: ['extensions/*/**', 'src/storage/**', 'src/kafka/control-plane.ts'],
    mayImport: ['core'],
  },
  {
    layer: 'components',
    globs: ['receivers/*/**', 'processors/*/**', 'exporters/*/**', 'connectors/*/**'],
    mayImport: ['core', 'extensions'],
    isolated: true,
  },
  {
    layer: 'frontends',
    globs: ['frontends/*/**', 'src/api/**', 'src/web/**', 'src/admin/**'],
    mayImport: ['core', 'extensions'],
  },
  {
    layer: 'service',
    globs: ['service/**', 'src/service.ts', 'src/components.ts', 'src/cli/**'],
    mayImport: ['core', 'extensions', 'components', 'frontends'],
  },
];
