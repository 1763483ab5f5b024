import { z } from 'zod';

const flushSchema = z
  .object({
    max_rows: z.number().int().positive().default(50_000).describe('Flush a signal once this many rows are staged'),
    max_bytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024)
      .describe("Flush a signal once its staged documents reach this many bytes (an estimate: the JSON documents' lengths)"),
    interval_ms: z.number().int().positive().default(10_000).describe('Flush whatever is staged at least this often'),
    linger_ms: z
      .number()
      .int()
      .positive()
      .default(200)
      .describe('With ack: lake, how long a flush waits for more rows after the first export that waits on it'),
  })
  .strict();

const compactionSchema = z
  .object({
    enabled: z.boolean().default(true).describe('Merge small files in the background'),
    min_rows: z
      .number()
      .int()
      .positive()
      .default(5_000)
      .describe('A file with fewer rows than this is small; two or more small files of one partition are merged into one'),
    interval_ms: z.number().int().positive().default(60_000).describe('How often to look for small files'),
  })
  .strict();

const s3Schema = z
  .object({
    endpoint: z.string().url().optional().describe('The S3 API endpoint (an S3-compatible server); unset: AWS for the region'),
    bucket: z.string().min(1).describe('The bucket holding the lake'),
    prefix: z.string().default('').describe('Key prefix of the lake in the bucket (the hive layout goes under it)'),
    region: z.string().min(1).default('us-east-1').describe("The bucket's region"),
    force_path_style: z.boolean().default(false).describe('Address the bucket in the path (most S3-compatible servers want this)'),
    multipart_bytes: z
      .number()
      .int()
      .positive()
      .default(16 * 1024 * 1024)
      .describe('Files larger than this are uploaded in parts (multipart upload), smaller ones with one PUT'),
    cache_max_bytes: z
      .number()
      .int()
      .positive()
      .default(2 * 1024 * 1024 * 1024)
      .describe(
        'A query node: most bytes of downloaded lake files and replay segment blobs kept in its local cache (`<path>/.s3-cache`, emptied at start), least recently read evicted first',
      ),
    refresh_ms: z.number().int().positive().default(1000).describe('A query node: how often it lists the bucket for new and removed files'),
    replaced_grace_ms: z
      .number()
      .int()
      .nonnegative()
      .default(60_000)
      .describe('A writer: how long the objects a compaction replaced stay in the bucket, so that readers that listed them can still read them'),
  })
  .strict();

export type S3LakeConfig = z.infer<typeof s3Schema>;

export const parquetConfigSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The lake directory (relative: to data_dir); default <data_dir>/lake (FAULTLINE_LAKE_DIR when not set here). Two instances (parquet, parquet/archive) need two directories',
      ),
    writer_id: z
      .string()
      // What host and pod names hold; the first character is never `.` or `-`, so the id cannot
      // name `.`/`..` in the lake's temporary directory, hide its files or read as an option.
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, -, . and _ (starting with a letter or digit), at most 64')
      .optional()
      .describe(
        'Set on a lake several workers write (one id per worker, stable across its restarts; a host or pod name such as faultline-worker-0 fits): the id goes into the names of its files, and its flushes, recovery and compaction touch only those',
      ),
    s3: s3Schema
      .optional()
      .describe(
        'The lake on an S3-compatible bucket (credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY): a writer publishes each file it writes under `path` to the bucket; a read-only node reads the bucket through a cache under `path`',
      ),
    ack: z
      .enum(['staging', 'lake'])
      .default('staging')
      .describe(
        'When an export resolves: once its rows are committed to the staging table (staging), or once they are in a published Parquet file of the lake (lake: what a Kafka worker sets, so that it commits offsets only for rows every node can read)',
      ),
    flush: flushSchema.prefault({}),
    compaction: compactionSchema.prefault({}),
    max_batch_items: z.number().int().positive().default(5000).describe('Most items staged in one transaction; more waiting items go in the next one'),
  })
  .strict();

export type ParquetConfig = z.infer<typeof parquetConfigSchema>;
