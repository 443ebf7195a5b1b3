import type { Credential } from './credential.js';

/** Storage port for credentials (DynamoDB in every environment, DynamoDB Local locally). */
export interface CredentialStore {
  get(apiKey: string): Promise<Credential | undefined>;
  /** Creates a credential; fails if the api key exists. */
  create(credential: Credential): Promise<void>;
  list(): Promise<Credential[]>;
  /** Marks the credential revoked; false when there is no such key. */
  revoke(apiKey: string, revokedAt: string): Promise<boolean>;
}
