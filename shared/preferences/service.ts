import pMap from 'p-map';
import { ApiError } from '#shared/api/errors.js';
import { distinct } from '#shared/api/identifiers.js';
import { isTransientDependencyError } from '#shared/lambda/dependency-errors.js';
import { logger } from '#shared/lambda/logger.js';
import {
  CHANNELS,
  type Channel,
  type ChannelConfig,
  type DeliverySetting,
  type EntryKey,
  type FullChannelConfig,
  type Scope,
  type StoredEntry,
} from './model.js';
import type { GetConfigRequest, SetConfigRequest } from './schemas.js';
import { entryId, type PreferenceStore } from './store.js';

/** Writes in flight at once for one request: fast for 30,000 entries, gentle on the table. */
export const WRITE_CONCURRENCY = 32;

export const SET_CONFIG_MESSAGE = 'User config set successfully.';
export const GET_CONFIG_MESSAGE = 'User config retrieved successfully.';

export interface UserSetResult {
  success: boolean;
  userId: string;
  documentId: string | null;
  documentIds?: string[];
  scope: Scope;
  message: string;
}

export interface SetConfigDeps {
  store: PreferenceStore;
  now?: () => Date;
  concurrency?: number;
}

/**
 * Contract 4.1: one entry per (user, document), or the organization-level entry per user
 * when no documents are named. Every entry is attempted; users with an entry that still fails
 * after the SDK's retries are reported, and the request answers 503 so that the caller
 * retries (writes are idempotent).
 */
export const setConfig = async (
  { store, now = () => new Date(), concurrency = WRITE_CONCURRENCY }: SetConfigDeps,
  request: SetConfigRequest,
  apiKey: string,
): Promise<Record<string, UserSetResult>> => {
  const userIds = distinct(request.userIds);
  const documentIds: (string | null)[] = request.documentIds ? distinct(request.documentIds) : [null];
  const meta = { updatedAt: now().toISOString(), updatedBy: apiKey };
  const failedUsers = new Set<string>();
  // A failure that retrying cannot cure (a missing table, denied access) is a fault of the
  // deployment, not an outage: it becomes INTERNAL rather than "503, safe to retry".
  let fault: unknown;

  const keys = userIds.flatMap((userId) =>
    documentIds.map((documentId): EntryKey => ({ organizationId: request.organizationId, userId, documentId })),
  );
  await pMap(
    keys,
    async (key) => {
      try {
        await store.setChannels(key, request.config, meta);
      } catch (error) {
        failedUsers.add(key.userId);
        if (!isTransientDependencyError(error)) fault ??= error;
        logger.error('Config write failed', { error, organizationId: key.organizationId, userId: key.userId });
      }
    },
    { concurrency },
  );

  if (fault !== undefined) throw fault;

  const results: Record<string, UserSetResult> = {};
  for (const userId of userIds) {
    const success = !failedUsers.has(userId);
    const scope: Scope = documentIds[0] === null ? 'organization' : 'document';
    results[userId] = {
      success,
      userId,
      documentId: documentIds[0] ?? null,
      ...(documentIds.length > 1 ? { documentIds: documentIds as string[] } : {}),
      scope,
      message: success ? 'Config set.' : 'Config could not be saved; retry the request.',
    };
  }
  if (failedUsers.size > 0) {
    throw new ApiError(
      'UNAVAILABLE',
      `Config could not be saved for ${failedUsers.size} of ${userIds.length} users; the request is safe to retry.`,
      results,
    );
  }
  return results;
};

export type ConfigSource = 'document' | 'organization' | 'default';

export interface ConfigView {
  userId: string;
  documentId: string | null;
  scope: Scope;
  config: ChannelConfig;
  effective: FullChannelConfig;
  source: Record<Channel, ConfigSource>;
}

/** Resolves each channel: document entry, then organization entry, then deployment default. */
export const resolveEffective = (
  layers: { document?: StoredEntry | undefined; organization?: StoredEntry | undefined },
  defaults: FullChannelConfig,
): Pick<ConfigView, 'effective' | 'source'> => {
  const effective = {} as Record<Channel, DeliverySetting>;
  const source = {} as Record<Channel, ConfigSource>;
  for (const channel of CHANNELS) {
    const fromDocument = layers.document?.config[channel];
    const fromOrganization = layers.organization?.config[channel];
    if (fromDocument) {
      effective[channel] = fromDocument;
      source[channel] = 'document';
    } else if (fromOrganization) {
      effective[channel] = fromOrganization;
      source[channel] = 'organization';
    } else {
      effective[channel] = defaults[channel];
      source[channel] = 'default';
    }
  }
  return { effective, source };
};

export interface GetConfigDeps {
  store: PreferenceStore;
  defaults: FullChannelConfig;
}

/** Contract 4.2: one item per requested document, or the organization-level item. One batched read. */
export const getConfig = async (
  { store, defaults }: GetConfigDeps,
  request: GetConfigRequest,
): Promise<ConfigView[]> => {
  const { organizationId, userId } = request;
  const organizationKey: EntryKey = { organizationId, userId, documentId: null };
  const documentKeys: EntryKey[] = (request.documentIds ? distinct(request.documentIds) : []).map((documentId) => ({
    organizationId,
    userId,
    documentId,
  }));
  const found = new Map((await store.getEntries([...documentKeys, organizationKey])).map((e) => [entryId(e), e]));
  const organization = found.get(entryId(organizationKey));

  if (documentKeys.length === 0) {
    return [
      {
        userId,
        documentId: null,
        scope: 'organization',
        config: organization?.config ?? {},
        ...resolveEffective({ organization }, defaults),
      },
    ];
  }
  return documentKeys.map((key) => {
    const document = found.get(entryId(key));
    return {
      userId,
      documentId: key.documentId,
      scope: 'document',
      config: document?.config ?? {},
      ...resolveEffective({ document, organization }, defaults),
    };
  });
};
