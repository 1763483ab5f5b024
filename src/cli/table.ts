/** A plain-text table for people: a header line, then one line per row; `-` for a missing value. */
export function table(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[], headers: readonly string[] = columns): string {
  const cells = rows.map((row) => columns.map((c) => (row[c] === null || row[c] === undefined || row[c] === '' ? '-' : String(row[c]))));
  const widths = columns.map((_, i) => Math.max(headers[i].length, ...cells.map((r) => r[i].length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}
