import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { LOCAL_LINK_KEYS_SECRET } from '#local/secrets/local-secrets-manager.js';
import { deriveKeyring, type Keyring, parseKeyringDocument } from '#shared/links/keyring.js';
import type { LocalService } from './local-service.js';

export const LINK_PATHS = {
  create: '/v2/notifications/links/create',
  revoke: '/v2/notifications/links/revoke',
} as const;

export interface Links {
  unsubscribeUrl: string;
  preferencesUrl: string;
  expiresAt: string;
  headers: Record<string, string>;
}

/** links/create through the service: each user's links. */
export const createLinks = async (
  service: LocalService,
  data: Record<string, unknown>,
): Promise<Record<string, Links>> => {
  const response = await service.call(LINK_PATHS.create, data);
  if (response.status !== 200) throw new Error(`links/create answered ${response.status}: ${response.text}`);
  return response.body.result?.data as Record<string, Links>;
};

export const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

/** The twin's keys, as its Secrets Manager stand-in serves them to the functions. */
export const twinKeyring = (service: LocalService): Promise<Keyring> =>
  keyringAt(service.secretsEndpoint, service.awsCredential);

/** The link keys as a Secrets Manager stand-in at `endpoint` serves them to `credentials`. */
export const keyringAt = async (
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
): Promise<Keyring> => {
  const client = new SecretsManagerClient({ endpoint, region: 'local', credentials });
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_SECRET }));
    return deriveKeyring(parseKeyringDocument(SecretString));
  } finally {
    client.destroy();
  }
};

/** A page of a link: status, headers and HTML. */
export const openPage = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, html: await response.text() };
};

/** A page's form sent as a browser sends it (application/x-www-form-urlencoded). */
export const postForm = (url: string, body: string) =>
  openPage(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

/** RFC 8058's one-click POST, as a mail client sends it. */
export const oneClick = (url: string, body = 'List-Unsubscribe=One-Click') => postForm(url, body);
