import { S3Client } from '@aws-sdk/client-s3';
import { MAX_ATTEMPTS, requestHandler } from './aws-clients.js';

/**
 * The S3 client of the files bucket, built once per process (module scope), with the same retry
 * and socket settings as the DynamoDB client. Path-style addressing: the bucket's name goes in
 * the path, so that one endpoint serves it on AWS and in the local twin alike (AWS_ENDPOINT_URL_S3
 * there). Only the functions that sign URLs or read and write files import this module.
 */
export const s3Client = new S3Client({ maxAttempts: MAX_ATTEMPTS, requestHandler, forcePathStyle: true });
