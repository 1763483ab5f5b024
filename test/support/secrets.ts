// Looking for raw secrets where Faultline keeps data: every file under a data directory, read as
// bytes and, where the bytes are compressed or encoded, as what they decode to (gzip blobs, Parquet
// files through hyparquet, the DuckDB file through DuckDB itself, its tables dumped as JSON).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The secrets (and, for each, the same text in the forms storage may keep it: JSON-escaped, base64) found in `text`. */
export function secretsIn(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => [secret, JSON.stringify(secret).slice(1, -1), Buffer.from(secret).toString('base64')].some((form) => text.includes(form)));
}

const json = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));

/** What a file holds, decoded where it is compressed: `[form, text]` pairs. */
export async function fileTexts(path: string): Promise<Array<[string, string]>> {
  const bytes = readFileSync(path);
  const texts: Array<[string, string]> = [
    ['bytes', bytes.toString('latin1')],
    ['utf8', bytes.toString('utf8')],
  ];
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) texts.push(['gunzip', gunzipSync(bytes).toString('utf8')]);
  if (path.endsWith('.parquet')) {
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    texts.push(['parquet rows', json(await parquetReadObjects({ file, compressors }))]);
  }
  if (path.endsWith('.duckdb')) texts.push(['duckdb tables', await duckdbTables(path)]);
  return texts;
}

/** Every row of every table of a DuckDB file (opened read-only), as JSON. */
async function duckdbTables(path: string): Promise<string> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const tables = (
      await connection.runAndReadAll(`SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'`)
    ).getRowObjectsJS();
    const out: string[] = [];
    for (const { table_schema: schema, table_name: table } of tables) {
      const result = await connection.runAndReadAll(`SELECT * FROM "${String(schema)}"."${String(table)}"`);
      out.push(`${String(table)}: ${json(result.getRowObjectsJS())}`);
    }
    return out.join('\n');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** `<file> (<form>): <secret>` for every secret found anywhere under `dir`; also how many files and which kinds were read. */
export async function secretsUnder(dir: string, secrets: readonly string[]): Promise<{ hits: string[]; files: string[]; forms: Set<string> }> {
  const hits: string[] = [];
  const forms = new Set<string>();
  const files = filesUnder(dir);
  for (const file of files) {
    for (const [form, text] of await fileTexts(file)) {
      forms.add(form);
      for (const secret of secretsIn(text, secrets)) hits.push(`${file.slice(dir.length)} (${form}): ${secret}`);
    }
  }
  return { hits, files, forms };
}
