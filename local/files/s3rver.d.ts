// s3rver ships no types: what the twin uses of it.
declare module 's3rver' {
  import type { EventEmitter } from 'node:events';
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface S3rverOptions {
    silent?: boolean;
    directory: string;
    allowMismatchedSignatures?: boolean;
    configureBuckets?: { name: string }[];
  }
  export default class S3rver extends EventEmitter {
    constructor(options: S3rverOptions);
    configureBuckets(): Promise<void>;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}

declare module 's3rver/lib/models/account.js' {
  interface AWSAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
    revokeAccessKey(accessKeyId: string): void;
  }
  const AWSAccountModule: {
    new (accountId: number, displayName: string): AWSAccount;
    DUMMY_ACCOUNT: AWSAccount;
  };
  export default AWSAccountModule;
}
