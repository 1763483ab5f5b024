// A real S3 API server on loopback for the lake-on-S3 tests: s3rver (an S3-compatible server in
// Node, objects kept in a temporary directory), started in the test's process on a free port,
// with one bucket. Its built-in account takes the credentials in `env`.
import S3rver from 's3rver';
import { tempDir } from './service.js';

export interface LoopbackS3 {
  endpoint: string;
  bucket: string;
  /** The environment a node reads its S3 credentials from. */
  env: Record<string, string>;
  /** The parquet exporter's `s3` section for this server. */
  lakeConfig(prefix?: string): Record<string, unknown>;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'faultline-lake'): Promise<LoopbackS3> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: tempDir('faultline-s3rver-'), configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const env = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
  Object.assign(process.env, env);
  return {
    endpoint,
    bucket,
    env,
    lakeConfig: (prefix = 'lake') => ({ endpoint, bucket, prefix, region: 'us-east-1', force_path_style: true }),
    stop: () => server.close(),
  };
}
