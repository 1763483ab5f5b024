// The table of a feature phase (bench/child-phase.ts): CPU per item with the feature and without
// it, measured on the service as a child process in the same run.
import type { FeaturePhase } from './child-phase.js';
import { n0, n1, table } from './table.js';

export function formatFeaturePhase(phase: FeaturePhase): string[] {
  const rows = phase.rows.map((row) => [
    row.label,
    n0(row.with.itemsPerSecond),
    n1(row.with.cpuMicrosPerItem),
    row.without ? n1(row.without.cpuMicrosPerItem) : '',
    row.without ? n1(row.with.cpuMicrosPerItem - row.without.cpuMicrosPerItem) : '',
    String(row.with.rejected + (row.without?.rejected ?? 0)),
  ]);
  return [
    phase.title,
    table(['', `${phase.item}s/s`, `CPU µs/${phase.item}`, 'without: µs', 'difference', 'not 2xx'], rows),
    ...phase.notes.map((note) => `  ${note}`),
    '',
  ];
}
