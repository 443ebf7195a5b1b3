// Generated from shared/api/operations.ts by `npm run generate`: do not edit.
// Plain TypeScript without imports: the published client needs nothing but these paths and types.

export const OPERATION_PATHS = {
  setConfig: '/v2/notifications/config/set',
  getConfig: '/v2/notifications/config/get',
  resolveConfig: '/v2/notifications/config/resolve',
  resetConfig: '/v2/notifications/config/reset',
  migrateDocument: '/v2/organizations/documents/migrate',
  getMigrationStatus: '/v2/organizations/documents/migrate/status',
} as const;

export type OperationId = keyof typeof OPERATION_PATHS;

/** `data` of setConfig. */
export type SetConfigInput = {
  organizationId: string;
  userIds: string[];
  documentIds?: string[];
  config: {
    inbox?: 'ALL' | 'MINE' | 'NONE';
    email?: 'ALL' | 'MINE' | 'NONE';
    slack?: 'ALL' | 'MINE' | 'NONE';
  };
};

/** `result.data` of setConfig. One entry per distinct user id, keyed by that id. */
export type SetConfigResult = {
  [key: string]: {
    success: boolean;
    userId: string;
    /** The (first) document, or null for the organization-level entry. */
    documentId: string | null;
    /** Every document, when several were named. */
    documentIds?: string[];
    scope: 'document' | 'organization';
    message: string;
  };
};

/** `data` of getConfig. */
export type GetConfigInput = {
  organizationId: string;
  userId: string;
  documentIds?: string[];
};

/** `result.data` of getConfig. One item per requested document, or one organization-level item. */
export type GetConfigResult = Array<{
  userId: string;
  documentId: string | null;
  scope: 'document' | 'organization';
  /** What is stored for the entry; channels never set are absent. */
  config: {
    inbox?: 'ALL' | 'MINE' | 'NONE';
    email?: 'ALL' | 'MINE' | 'NONE';
    slack?: 'ALL' | 'MINE' | 'NONE';
  };
  /** Every channel resolved: document entry, then organization entry, then deployment default. */
  effective: {
    inbox: 'ALL' | 'MINE' | 'NONE';
    email: 'ALL' | 'MINE' | 'NONE';
    slack: 'ALL' | 'MINE' | 'NONE';
  };
  /** Which layer gave each effective channel. */
  source: {
    inbox: 'document' | 'organization' | 'default';
    email: 'document' | 'organization' | 'default';
    slack: 'document' | 'organization' | 'default';
  };
}>;

/** `data` of resolveConfig. */
export type ResolveConfigInput = {
  organizationId: string;
  documentId: string;
  userIds: string[];
  activity?: {
    involvedUserIds?: string[];
  };
};

/** `result.data` of resolveConfig. */
export type ResolveConfigResult = {
  documentId: string;
  /** One entry per distinct requested user, keyed by user id. */
  users: {
    [key: string]: {
      userId: string;
      /** Every channel resolved: document entry, then organization entry, then deployment default. */
      effective: {
        inbox: 'ALL' | 'MINE' | 'NONE';
        email: 'ALL' | 'MINE' | 'NONE';
        slack: 'ALL' | 'MINE' | 'NONE';
      };
      /** Which layer gave each effective channel. */
      source: {
        inbox: 'document' | 'organization' | 'default';
        email: 'document' | 'organization' | 'default';
        slack: 'document' | 'organization' | 'default';
      };
      /** With an activity: whether each channel delivers it to this user. */
      deliver?: {
        inbox: boolean;
        email: boolean;
        slack: boolean;
      };
    };
  };
  /** With an activity: the delivering user ids per channel, in request order. */
  recipients?: {
    inbox: string[];
    email: string[];
    slack: string[];
  };
};

/** `data` of resetConfig. */
export type ResetConfigInput = {
  organizationId: string;
  userIds: string[];
  documentIds?: string[];
  channels?: Array<'inbox' | 'email' | 'slack'>;
};

/** `result.data` of resetConfig. One entry per distinct user id, keyed by that id. */
export type ResetConfigResult = {
  [key: string]: {
    success: boolean;
    userId: string;
    /** The (first) document, or null for the organization-level entry. */
    documentId: string | null;
    /** Every document, when several were named. */
    documentIds?: string[];
    scope: 'document' | 'organization';
    message: string;
  };
};

/** `data` of migrateDocument. */
export type MigrateInput = {
  organizationId: string;
  documentId: string;
  newDocumentId: string;
};

/** `result.data` of migrateDocument. */
export type MigrateResult = {
  /** Unique, sortable by creation time. */
  migrationId: string;
};

/** `data` of getMigrationStatus. */
export type MigrationStatusInput = {
  organizationId: string;
  migrationId: string;
};

/** `result.data` of getMigrationStatus. */
export type MigrationStatusResult = {
  migrationId: string;
  organizationId: string;
  documentId: string;
  newDocumentId: string;
  status: 'pending' | 'in_progress' | 'completed' | 'failed';
  /** Source entries written to the target so far. */
  moved: number;
  /** Source entries left because the target entry was newer. */
  skipped: number;
  /** ISO-8601 UTC time. */
  createdAt: string;
  /** ISO-8601 UTC time. */
  updatedAt: string;
  /** ISO-8601 UTC time. */
  completedAt?: string;
  /** Why the migration failed (status failed). */
  error?: string;
};

/** Each operation's `data` and `result.data`, by operationId. */
export interface OperationTypes {
  setConfig: { input: SetConfigInput; result: SetConfigResult };
  getConfig: { input: GetConfigInput; result: GetConfigResult };
  resolveConfig: { input: ResolveConfigInput; result: ResolveConfigResult };
  resetConfig: { input: ResetConfigInput; result: ResetConfigResult };
  migrateDocument: { input: MigrateInput; result: MigrateResult };
  getMigrationStatus: { input: MigrationStatusInput; result: MigrationStatusResult };
}

/** `data` a client sends to an operation. */
export type OperationInput<Id extends OperationId> = OperationTypes[Id]['input'];
/** `result.data` an operation answers. */
export type OperationResult<Id extends OperationId> = OperationTypes[Id]['result'];
