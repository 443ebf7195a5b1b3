import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  EventType,
  type IBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { FILE_FOLDERS, FILE_RETENTION_DAYS } from '#shared/files/keys.js';
import { CONTROL_TOWER } from './guard-rules.js';

/**
 * The bucket of import and export files (contract 15.3): private (every public access blocked,
 * ACLs off), encrypted at rest with S3-managed keys, TLS only, and every object deleted
 * FILE_RETENTION_DAYS after it was written; an upload left unfinished is aborted after a day.
 * Presigned URLs, signed by the functions that may perform the call, are the only way in or out.
 */
export const createFilesBucket = (scope: Construct, removalPolicy: RemovalPolicy): Bucket => {
  const bucket = new Bucket(scope, 'FilesBucket', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    versioned: false,
    lifecycleRules: [
      {
        id: 'DeleteFilesAfterRetention',
        expiration: Duration.days(FILE_RETENTION_DAYS),
        abortIncompleteMultipartUploadAfter: Duration.days(1),
      },
    ],
    // Files live 7 days at most: a stack deleted with files younger than that keeps the bucket
    // until an operator empties it (docs/operations.md, Files bucket), rather than a custom
    // resource that deletes objects on the stack's behalf.
    removalPolicy,
  });
  const logs =
    'Server access logs would record each presigned request, whose query string carries its signature, in a ' +
    'second bucket to keep and protect; the files are transient (deleted after 7 days), each one is created by ' +
    "an authenticated API call that the API's access logs and the job's status record already trace.";
  Validations.of(bucket).acknowledge(
    { id: 'AwsSolutions-S1', reason: logs },
    { id: CONTROL_TOWER.bucketLogging, reason: logs },
    {
      id: CONTROL_TOWER.bucketKmsKey,
      reason:
        'Encrypted at rest with S3-managed keys, like the tables and queues with their AWS managed keys: a ' +
        'customer managed key would add a key policy and kms grants to every function that signs a URL, and a ' +
        'KMS call per request, for no control the service needs over files that live 7 days.',
    },
    {
      id: CONTROL_TOWER.bucketVersioning,
      reason:
        'Each file is written once under a new random key and never rewritten; versions would only keep ' +
        'deleted files past their 7 days, which the contract forbids.',
    },
    {
      id: CONTROL_TOWER.bucketObjectLock,
      reason: 'Object lock would keep files the contract says are deleted 7 days after they were written.',
    },
    {
      id: CONTROL_TOWER.bucketNotifications,
      reason:
        "The bucket does notify (noticeUploads: the imports folder to the import queue), set by the CDK's " +
        "notification function at deployment rather than in the bucket's own resource, which the rule reads.",
    },
  );
  return bucket;
};

/**
 * An upload's arrival starts its import (contract 15.1): S3 tells the import queue of every file
 * created in the imports folder, and the import consumer finds the import the key is for
 * (shared/imports/upload.ts). The queue policy lets this bucket, in this account, send to it.
 */
export const noticeUploads = (bucket: IBucket, importQueue: IQueue): void => {
  bucket.addEventNotification(EventType.OBJECT_CREATED, new SqsDestination(importQueue), {
    prefix: `${FILE_FOLDERS.imports}/`,
  });
  // CloudFormation cannot set a bucket's notification to a queue whose policy names that bucket
  // (each would wait for the other), so the CDK sets it with its own function at deployment.
  const handler = Stack.of(bucket)
    .node.children.filter((child) => child.node.id.startsWith('BucketNotificationsHandler'))
    .at(0);
  if (!handler) return;
  const reason =
    "The CDK's own function that sets the bucket's notification during a deployment (never called " +
    'by the service): it runs once per deployment with the AWS managed basic execution role, outside any VPC.';
  Validations.of(handler).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason,
    },
    { id: CONTROL_TOWER.lambdaVpc, reason },
  );
};
