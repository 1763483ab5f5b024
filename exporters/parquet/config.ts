import { z } from 'zod';

const flushSchema = z
  .object({
    /** Flush a signal once this many rows are staged. */
    max_rows: z.number().int().positive().default(50_000),
    /** Flush a signal once its staged documents reach this many bytes (an estimate: the JSON documents' lengths). */
    max_bytes: z.number().int().positive().default(64 * 1024 * 1024),
    /** Flush whatever is staged at least this often. */
    interval_ms: z.number().int().positive().default(10_000),
  })
  .strict();

const compactionSchema = z
  .object({
    /** Merge small files in the background. */
    enabled: z.boolean().default(true),
    /** A file with fewer rows than this is small; two or more small files of one partition are merged into one. */
    min_rows: z.number().int().positive().default(5_000),
    /** How often to look for small files. */
    interval_ms: z.number().int().positive().default(60_000),
  })
  .strict();

export const parquetConfigSchema = z
  .object({
    /**
     * The lake directory; default service.lake.path (<data_dir>/lake). Two instances
     * (`parquet`, `parquet/archive`) need two directories.
     */
    path: z.string().min(1).optional(),
    flush: flushSchema.prefault({}),
    compaction: compactionSchema.prefault({}),
    /** Most items staged in one transaction; more waiting items go in the next one. */
    max_batch_items: z.number().int().positive().default(5000),
  })
  .strict();

export type ParquetConfig = z.infer<typeof parquetConfigSchema>;
