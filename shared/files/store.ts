import { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  NoSuchUpload,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { PRESIGNED_URL_SECONDS } from './keys.js';

/** A part of a file written in parts, as its completion names it. */
export interface FilePart {
  partNumber: number;
  etag: string;
}

/** A presigned URL and when it stops working. */
export interface SignedUrl {
  url: string;
  expiresAt: string;
}

/**
 * The files bucket as the service uses it (contract 15.3): presigned URLs for callers, and
 * files written whole or in parts (a multipart upload: memory holds one part at a time).
 */
export class FileStore {
  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
  ) {}

  private async sign(command: GetObjectCommand | PutObjectCommand, now: Date): Promise<SignedUrl> {
    const url = await getSignedUrl(this.client, command, { expiresIn: PRESIGNED_URL_SECONDS, signingDate: now });
    return { url, expiresAt: new Date(now.getTime() + PRESIGNED_URL_SECONDS * 1000).toISOString() };
  }

  /** A GET of the file for an hour (signing takes GetObject on its folder). */
  downloadUrl(key: string, now = new Date()): Promise<SignedUrl> {
    return this.sign(new GetObjectCommand({ Bucket: this.bucket, Key: key }), now);
  }

  /** A PUT of one file for an hour (signing takes PutObject on its folder); S3 refuses one over 5 GiB. */
  uploadUrl(key: string, now = new Date()): Promise<SignedUrl> {
    return this.sign(new PutObjectCommand({ Bucket: this.bucket, Key: key }), now);
  }

  /** Reads a file as a stream (GetObject): memory holds what the reader has not consumed yet. */
  async read(key: string): Promise<Readable> {
    const output = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    if (!(output.Body instanceof Readable)) throw new Error(`S3 answered no body for ${key}`);
    return output.Body;
  }

  /** Reads a small file whole (GetObject). */
  async readAll(key: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.read(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** Writes a file whole (PutObject). */
  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }),
    );
  }

  /** Starts a file written in parts (PutObject): its upload id. */
  async startParts(key: string, contentType: string): Promise<string> {
    const output = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
    );
    if (!output.UploadId) throw new Error('S3 answered no upload id');
    return output.UploadId;
  }

  /** Writes part `partNumber` (PutObject); writing it again replaces it. */
  async putPart(key: string, uploadId: string, partNumber: number, body: Buffer): Promise<FilePart> {
    const output = await this.client.send(
      new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: body }),
    );
    if (!output.ETag) throw new Error(`S3 answered no ETag for part ${partNumber}`);
    return { partNumber, etag: output.ETag };
  }

  /**
   * Completes a file written in parts (PutObject). An upload S3 no longer knows was completed
   * already (a run that completed it stopped before saving so): the file is there.
   */
  async completeParts(key: string, uploadId: string, parts: readonly FilePart[]): Promise<void> {
    try {
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts.map(({ partNumber, etag }) => ({ PartNumber: partNumber, ETag: etag })) },
        }),
      );
    } catch (error) {
      if (!(error instanceof NoSuchUpload)) throw error;
    }
  }
}
