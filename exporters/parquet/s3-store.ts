// The lake on an S3-compatible bucket (@aws-sdk/client-s3). Credentials come from the SDK's
// default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY in the environment, or a profile or
// role). A file is one PUT, or a multipart upload past `multipart_bytes` (aborted on failure): in
// both cases the object is visible only once complete, so a writer killed mid-upload leaves nothing.
import { createWriteStream, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { LakeObject, LakeStore } from './lake-store.js';
import type { S3LakeConfig } from './config.js';

/** Size of each part of a multipart upload (S3's minimum is 5 MiB). */
const PART_BYTES = 8 * 1024 * 1024;

export class S3LakeStore implements LakeStore {
  readonly description: string;
  private readonly client: S3Client;
  private readonly prefix: string;

  constructor(private readonly config: S3LakeConfig) {
    this.client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: config.force_path_style,
      // Checksums only where the API requires them: S3-compatible servers differ on the newer ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.prefix = config.prefix.replace(/^\/+|\/+$/g, '');
    this.description = `s3://${config.bucket}/${this.prefix}`;
  }

  private objectKey(key: string): string {
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  async put(key: string, file: string): Promise<void> {
    const size = statSync(file).size;
    // A buffer, not a stream: the SDK can retry a buffer's PUT on a transient error.
    if (size <= this.config.multipart_bytes) return this.putBytes(key, readFileSync(file));
    const handle = await open(file, 'r');
    try {
      await this.putParts(this.objectKey(key), size, async (offset, length) => {
        const body = Buffer.alloc(length);
        await handle.read(body, 0, length, offset);
        return body;
      });
    } finally {
      await handle.close();
    }
  }

  /** Stores bytes under the key (one PUT, or multipart past `multipart_bytes`); whole or not at all. */
  async putBytes(key: string, body: Buffer): Promise<void> {
    const Key = this.objectKey(key);
    if (body.length <= this.config.multipart_bytes) {
      await this.client.send(new PutObjectCommand({ Bucket: this.config.bucket, Key, Body: body }));
      return;
    }
    await this.putParts(Key, body.length, (offset, length) => Promise.resolve(body.subarray(offset, offset + length)));
  }

  /** A multipart upload of `size` bytes read part by part; aborted on failure, so no part outlives it but by a crash. */
  private async putParts(Key: string, size: number, part: (offset: number, length: number) => Promise<Buffer>): Promise<void> {
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.config.bucket, Key }));
    try {
      const parts: Array<{ ETag?: string; PartNumber: number }> = [];
      for (let offset = 0, number = 1; offset < size; offset += PART_BYTES, number++) {
        const Body = await part(offset, Math.min(PART_BYTES, size - offset));
        const { ETag } = await this.client.send(new UploadPartCommand({ Bucket: this.config.bucket, Key, UploadId, PartNumber: number, Body }));
        parts.push({ ETag, PartNumber: number });
      }
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.config.bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (error) {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.config.bucket, Key, UploadId })).catch(() => undefined);
      throw error;
    }
  }

  async list(prefix: string): Promise<LakeObject[]> {
    const objects: LakeObject[] = [];
    const strip = this.prefix ? this.prefix.length + 1 : 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: this.objectKey(prefix), ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key) objects.push({ key: object.Key.slice(strip), size: object.Size ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return objects;
  }

  async download(key: string, to: string): Promise<boolean> {
    const partial = `${to}.${randomBytes(6).toString('hex')}.part`;
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
      await pipeline(object.Body as Readable, createWriteStream(partial));
      renameSync(partial, to);
      return true;
    } catch (error) {
      rmSync(partial, { force: true });
      if (isMissing(error)) return false;
      throw error;
    }
  }

  /** The object's bytes, or undefined when it is gone. */
  async get(key: string): Promise<Buffer | undefined> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
      return Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const Objects = keys.slice(i, i + 1000).map((key) => ({ Key: this.objectKey(key) }));
      const result = await this.client.send(new DeleteObjectsCommand({ Bucket: this.config.bucket, Delete: { Objects, Quiet: true } }));
      const failed = (result.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length) throw new Error(`could not delete ${failed.length} lake objects: ${failed[0].Code} ${failed[0].Message}`);
    }
  }

  close(): void {
    this.client.destroy();
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404);
}
