import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { FILE_FOLDERS, FILE_RETENTION_DAYS } from '#shared/files/keys.js';
import {
  describeViolations,
  type Json,
  only,
  type Resources,
  SHARED_SYNTH_TIMEOUT_MS,
  type Synthesized,
  sharedSynth,
} from './synth.js';

// The bucket of import and export files (contract 15.3), in the run's shared synthesis of
// cdk.json's `dev` stage (test/infra/synth.ts).
let s: Synthesized;
let resources: Resources;
beforeAll(async () => {
  s = await sharedSynth('dev');
  resources = s.template.toJSON().Resources;
}, SHARED_SYNTH_TIMEOUT_MS);
afterAll(() => s?.cleanup());

const bucketId = () => s.logicalId(s.stack.files.bucket);

describe('files bucket', () => {
  test('private: every public access blocked, ACLs off, encrypted at rest', () => {
    const bucket = only(Object.values(resources).filter((r) => r.Type === 'AWS::S3::Bucket'));
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.OwnershipControls.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
      { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
    ]);
  });

  test('every object is deleted 7 days after it was written; an unfinished upload is aborted', () => {
    const bucket = resources[bucketId()] as Json;
    expect(FILE_RETENTION_DAYS).toBe(7);
    expect(bucket.Properties.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({
        Status: 'Enabled',
        ExpirationInDays: 7,
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
      }),
    ]);
    // The rule has no filter: it covers every key.
    expect(bucket.Properties.LifecycleConfiguration.Rules[0].Prefix).toBeUndefined();
  });

  test('its policy refuses every request made without TLS', () => {
    const policy = only(Object.values(resources).filter((r) => r.Type === 'AWS::S3::BucketPolicy'));
    expect(policy.Properties.Bucket).toEqual({ Ref: bucketId() });
    expect(policy.Properties.PolicyDocument.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      ]),
    );
  });

  test('cdk-nag and the guard rules pass, server access logs acknowledged with a reason', () => {
    expect(describeViolations(s.nagViolations)).toEqual([]);
  });

  test('grants name one folder of the bucket, never the bucket or every object', () => {
    // The CDK's own function that sets the bucket's notification at deployment may do that only.
    const cdkOwn = (r: Json) => JSON.stringify(r.Properties.Roles).includes('BucketNotificationsHandler');
    const policies = Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Policy');
    expect(
      policies.filter(cdkOwn).flatMap((r) => (r.Properties.PolicyDocument.Statement as Json[]).map((st) => st.Action)),
    ).toEqual(['s3:PutBucketNotification']);
    const statements = policies
      .filter((r) => !cdkOwn(r))
      .flatMap((r) => r.Properties.PolicyDocument.Statement as Json[])
      .filter((st) => [st.Action].flat().some((a: string) => a.startsWith('s3:')));
    const folders = Object.values(FILE_FOLDERS).map((folder) => `/${folder}/*`);
    for (const st of statements) {
      const resource = JSON.stringify(st.Resource);
      expect(folders.some((folder) => resource.includes(folder))).toBe(true);
    }
  });
});
