// Generated from the routes (shared/<domain>/routes/) and their documentation (tools/openapi/) by `npm run generate`: do not edit.
// Plain TypeScript without imports: the published client needs nothing but these paths and types.

export const OPERATION_PATHS = {
  setConfig: '/v2/notifications/config/set',
  getConfig: '/v2/notifications/config/get',
  setSchedule: '/v2/notifications/schedule/set',
  getSchedule: '/v2/notifications/schedule/get',
  resolveConfig: '/v2/notifications/config/resolve',
  resetConfig: '/v2/notifications/config/reset',
  getConfigHistory: '/v2/notifications/config/history',
  setPolicy: '/v2/organizations/policy/set',
  getPolicy: '/v2/organizations/policy/get',
  setBranding: '/v2/organizations/branding/set',
  getBranding: '/v2/organizations/branding/get',
  migrateDocument: '/v2/organizations/documents/migrate',
  getMigrationStatus: '/v2/organizations/documents/migrate/status',
  eraseUser: '/v2/organizations/users/erase',
  getErasureStatus: '/v2/organizations/users/erase/status',
  exportUser: '/v2/organizations/users/export',
  createExport: '/v2/organizations/exports/create',
  getExportStatus: '/v2/organizations/exports/status',
  createImport: '/v2/organizations/imports/create',
  getImportStatus: '/v2/organizations/imports/status',
  createLinks: '/v2/notifications/links/create',
  revokeLinks: '/v2/notifications/links/revoke',
  setWebhooks: '/v2/organizations/webhooks/set',
  getWebhooks: '/v2/organizations/webhooks/get',
  rotateWebhookSecret: '/v2/organizations/webhooks/rotate-secret',
  getWebhookDeliveries: '/v2/organizations/webhooks/deliveries',
} as const;

export type OperationId = keyof typeof OPERATION_PATHS;

/**
 * The operations whose second sending is not the first one again when the first may have been
 * applied (no answer, or a 503 that may have come after the work): the client does not resend
 * those on its own. `why` says why; `onlyWith` names a field of `data` without which a repeat is safe.
 */
export const NOT_REPEATABLE: { readonly [Id in OperationId]?: { why: string; onlyWith?: string } } = {
  setPolicy: {
    why: 'a repeat of a request that was applied is refused 409 ABORTED: the version has moved on',
    onlyWith: 'expectedVersion',
  },
  rotateWebhookSecret: { why: 'each rotation makes a new secret: a repeat replaces the one the first answered' },
};

/**
 * The operations that start a job and take an `Idempotency-Key` header: the client sends one key
 * with every attempt of a call, so that a repeat after a lost answer answers what the first did.
 */
export const IDEMPOTENCY_KEY: { readonly [Id in OperationId]?: true } = {
  migrateDocument: true,
  eraseUser: true,
  createExport: true,
  createImport: true,
};

/** `data` of setConfig. */
export type SetConfigInput = {
  organizationId: string;
  userIds: string[];
  documentIds?: string[] | undefined;
  /** At least one of inbox, email, slack; a channel left out keeps its stored value. */
  config: {
    inbox?: 'ALL' | 'MINE' | 'NONE' | undefined;
    email?: 'ALL' | 'MINE' | 'NONE' | undefined;
    slack?: 'ALL' | 'MINE' | 'NONE' | undefined;
  };
  category?: string | undefined;
  consent?:
    | {
        source: string;
        capturedAt?: string | undefined;
        textVersion?: string | undefined;
        text?: string | undefined;
        ipAddress?: string | undefined;
        userAgent?: string | undefined;
      }
    | undefined;
};

/** `result.data` of setConfig. One entry per distinct user id, keyed by that id. */
export type SetConfigResult = {
  [key: string]: {
    success: boolean;
    userId: string;
    /** The (first) document, or null for the organization-level entry. */
    documentId: string | null;
    /** Every document, when several were named. */
    documentIds?: string[] | undefined;
    scope: 'document' | 'organization';
    message: string;
  };
};

/** `data` of getConfig. */
export type GetConfigInput = {
  organizationId: string;
  userId: string;
  documentIds?: string[] | undefined;
  category?: string | undefined;
  explain?: boolean | undefined;
};

/** `result.data` of getConfig. One item per requested document, or one organization-level item. */
export type GetConfigResult = Array<{
  userId: string;
  documentId: string | null;
  scope: 'document' | 'organization';
  /** What is stored for the entry for all categories; channels never set are absent. */
  config: {
    inbox?: 'ALL' | 'MINE' | 'NONE' | undefined;
    email?: 'ALL' | 'MINE' | 'NONE' | undefined;
    slack?: 'ALL' | 'MINE' | 'NONE' | undefined;
  };
  /** The entry's stored category layers, keyed by category id ({} when none). */
  categories: {
    [key: string]: {
      inbox?: 'ALL' | 'MINE' | 'NONE' | undefined;
      email?: 'ALL' | 'MINE' | 'NONE' | undefined;
      slack?: 'ALL' | 'MINE' | 'NONE' | undefined;
    };
  };
  /** Every channel resolved (for the request's `category` when given), in the order config/get describes. */
  effective: {
    inbox: 'ALL' | 'MINE' | 'NONE';
    email: 'ALL' | 'MINE' | 'NONE';
    slack: 'ALL' | 'MINE' | 'NONE';
  };
  /** Which layer gave each effective channel. */
  source: {
    inbox:
      | 'locked'
      | 'document:category'
      | 'document'
      | 'organization:category'
      | 'organization'
      | 'policy:category'
      | 'policy'
      | 'default';
    email:
      | 'locked'
      | 'document:category'
      | 'document'
      | 'organization:category'
      | 'organization'
      | 'policy:category'
      | 'policy'
      | 'default';
    slack:
      | 'locked'
      | 'document:category'
      | 'document'
      | 'organization:category'
      | 'organization'
      | 'policy:category'
      | 'policy'
      | 'default';
  };
  /** With `explain`: per channel, every layer that has a value, the winner first, `default` last. */
  trace?:
    | {
        inbox: Array<{
          source:
            | 'locked'
            | 'document:category'
            | 'document'
            | 'organization:category'
            | 'organization'
            | 'policy:category'
            | 'policy'
            | 'default';
          value: 'ALL' | 'MINE' | 'NONE';
        }>;
        email: Array<{
          source:
            | 'locked'
            | 'document:category'
            | 'document'
            | 'organization:category'
            | 'organization'
            | 'policy:category'
            | 'policy'
            | 'default';
          value: 'ALL' | 'MINE' | 'NONE';
        }>;
        slack: Array<{
          source:
            | 'locked'
            | 'document:category'
            | 'document'
            | 'organization:category'
            | 'organization'
            | 'policy:category'
            | 'policy'
            | 'default';
          value: 'ALL' | 'MINE' | 'NONE';
        }>;
      }
    | undefined;
}>;

/** `data` of setSchedule. */
export type SetScheduleInput = {
  organizationId: string;
  userIds: string[];
  /** The whole schedule, replacing the stored one; null removes it. */
  schedule: {
    timeZone: string;
    quietHours?:
      | Array<{
          days: Array<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'>;
          start: string;
          end: string;
          channels?: Array<'inbox' | 'email' | 'slack'> | undefined;
        }>
      | undefined;
    snoozeUntil?: string | null | undefined;
    digest?:
      | {
          channels: Array<'inbox' | 'email' | 'slack'>;
          cadence: 'daily' | 'weekly';
          at: string;
          day?: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun' | undefined;
        }
      | undefined;
  } | null;
  consent?:
    | {
        source: string;
        capturedAt?: string | undefined;
        textVersion?: string | undefined;
        text?: string | undefined;
        ipAddress?: string | undefined;
        userAgent?: string | undefined;
      }
    | undefined;
};

/** `result.data` of setSchedule. One entry per distinct user id, keyed by that id. */
export type SetScheduleResult = {
  [key: string]: {
    success: boolean;
    userId: string;
    /** The (first) document, or null for the organization-level entry. */
    documentId: string | null;
    /** Every document, when several were named. */
    documentIds?: string[] | undefined;
    scope: 'document' | 'organization';
    message: string;
  };
};

/** `data` of getSchedule. */
export type GetScheduleInput = {
  organizationId: string;
  userId: string;
};

/** `result.data` of getSchedule. */
export type GetScheduleResult = {
  userId: string;
  /** The stored schedule, or null. */
  schedule: {
    timeZone: string;
    quietHours?:
      | Array<{
          days: Array<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'>;
          start: string;
          end: string;
          channels: Array<'inbox' | 'email' | 'slack'>;
        }>
      | undefined;
    snoozeUntil?: string | null | undefined;
    digest?:
      | {
          channels: Array<'inbox' | 'email' | 'slack'>;
          cadence: 'daily' | 'weekly';
          at: string;
          day?: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun' | undefined;
        }
      | undefined;
  } | null;
};

/** `data` of resolveConfig. */
export type ResolveConfigInput = {
  organizationId: string;
  documentId: string;
  userIds: string[];
  activity?:
    | {
        involvedUserIds?: string[] | undefined;
      }
    | undefined;
  category?: string | undefined;
  at?: string | undefined;
  priority?: 'normal' | 'urgent' | undefined;
};

/** `result.data` of resolveConfig. */
export type ResolveConfigResult = {
  documentId: string;
  /** One entry per distinct requested user, keyed by user id. */
  users: {
    [key: string]: {
      userId: string;
      /** Every channel resolved, in the order the description gives. */
      effective: {
        inbox: 'ALL' | 'MINE' | 'NONE';
        email: 'ALL' | 'MINE' | 'NONE';
        slack: 'ALL' | 'MINE' | 'NONE';
      };
      /** Which layer gave each effective channel. */
      source: {
        inbox:
          | 'locked'
          | 'document:category'
          | 'document'
          | 'organization:category'
          | 'organization'
          | 'policy:category'
          | 'policy'
          | 'default';
        email:
          | 'locked'
          | 'document:category'
          | 'document'
          | 'organization:category'
          | 'organization'
          | 'policy:category'
          | 'policy'
          | 'default';
        slack:
          | 'locked'
          | 'document:category'
          | 'document'
          | 'organization:category'
          | 'organization'
          | 'policy:category'
          | 'policy'
          | 'default';
      };
      /** With an activity: whether each channel delivers it to this user. */
      deliver?:
        | {
            inbox: boolean;
            email: boolean;
            slack: boolean;
          }
        | undefined;
      /** With an activity: what each channel does with it at `at`. */
      decision?:
        | {
            inbox: {
              action: 'send' | 'defer' | 'digest' | 'suppress';
              deliverAt?: string | undefined;
              reason: 'preference' | 'digest' | 'snoozed' | 'quiet_hours';
            };
            email: {
              action: 'send' | 'defer' | 'digest' | 'suppress';
              deliverAt?: string | undefined;
              reason: 'preference' | 'digest' | 'snoozed' | 'quiet_hours';
            };
            slack: {
              action: 'send' | 'defer' | 'digest' | 'suppress';
              deliverAt?: string | undefined;
              reason: 'preference' | 'digest' | 'snoozed' | 'quiet_hours';
            };
          }
        | undefined;
    };
  };
  /** With an activity: the delivering user ids per channel, in request order. */
  recipients?:
    | {
        inbox: string[];
        email: string[];
        slack: string[];
      }
    | undefined;
  /** With an activity: per channel, the users to send to now, in request order. */
  sendNow?:
    | {
        inbox: string[];
        email: string[];
        slack: string[];
      }
    | undefined;
  /** With an activity: per channel, the users to deliver to later, with when and why. */
  deferred?:
    | {
        inbox: Array<{
          userId: string;
          action: 'defer' | 'digest';
          deliverAt: string;
        }>;
        email: Array<{
          userId: string;
          action: 'defer' | 'digest';
          deliverAt: string;
        }>;
        slack: Array<{
          userId: string;
          action: 'defer' | 'digest';
          deliverAt: string;
        }>;
      }
    | undefined;
};

/** `data` of resetConfig. */
export type ResetConfigInput = {
  organizationId: string;
  userIds: string[];
  documentIds?: string[] | undefined;
  channels?: Array<'inbox' | 'email' | 'slack'> | undefined;
  category?: string | undefined;
  consent?:
    | {
        source: string;
        capturedAt?: string | undefined;
        textVersion?: string | undefined;
        text?: string | undefined;
        ipAddress?: string | undefined;
        userAgent?: string | undefined;
      }
    | undefined;
};

/** `result.data` of resetConfig. One entry per distinct user id, keyed by that id. */
export type ResetConfigResult = {
  [key: string]: {
    success: boolean;
    userId: string;
    /** The (first) document, or null for the organization-level entry. */
    documentId: string | null;
    /** Every document, when several were named. */
    documentIds?: string[] | undefined;
    scope: 'document' | 'organization';
    message: string;
  };
};

/** `data` of getConfigHistory. */
export type ConfigHistoryInput = {
  organizationId: string;
  userId: string;
  documentId?: string | null | undefined;
  category?: string | null | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
};

/** `result.data` of getConfigHistory. */
export type ConfigHistoryResult = {
  /** Newest first. */
  changes: Array<{
    /** Unique per change; the same in the history and in its event. */
    changeId: string;
    organizationId: string;
    userId: string;
    /** The document, or null for the organization-level entry. */
    documentId: string | null;
    scope: 'document' | 'organization' | 'schedule';
    /** The category layer that changed, or null for the all-categories layer. */
    category: string | null;
    /** What made the change. */
    cause: 'set' | 'reset' | 'migration' | 'erasure' | 'link' | 'import';
    /** ISO-8601 UTC time of the change. */
    changedAt: string;
    /** The api key for set and reset, `migration:<migrationId>`, `erasure:<erasureId>` or `link:<keyId>` otherwise. */
    changedBy: string;
    evidence:
      | {
          via: 'api';
          source?: string | undefined;
          capturedAt?: string | undefined;
          textVersion?: string | undefined;
          textSha256?: string | undefined;
          ipAddress?: string | undefined;
          userAgent?: string | undefined;
        }
      | {
          via: 'link' | 'page';
          keyId: string;
          issuedAt?: string | undefined;
          pageVersion?: string | undefined;
          ipAddress?: string | undefined;
          userAgent?: string | undefined;
        }
      | {
          via: 'migration';
          migrationId: string;
        }
      | {
          via: 'erasure';
          erasureId: string;
        }
      | {
          via: 'import';
          importId: string;
          source?: string | undefined;
          capturedAt?: string | undefined;
          textVersion?: string | undefined;
          textSha256?: string | undefined;
          ipAddress?: string | undefined;
          userAgent?: string | undefined;
        };
    /** The layer's stored channels before the change; {} when there were none. */
    before:
      | {
          inbox?: 'ALL' | 'MINE' | 'NONE' | undefined;
          email?: 'ALL' | 'MINE' | 'NONE' | undefined;
          slack?: 'ALL' | 'MINE' | 'NONE' | undefined;
        }
      | {
          timeZone: string;
          quietHours?:
            | Array<{
                days: Array<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'>;
                start: string;
                end: string;
                channels: Array<'inbox' | 'email' | 'slack'>;
              }>
            | undefined;
          snoozeUntil?: string | null | undefined;
          digest?:
            | {
                channels: Array<'inbox' | 'email' | 'slack'>;
                cadence: 'daily' | 'weekly';
                at: string;
                day?: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun' | undefined;
              }
            | undefined;
        }
      | null;
    /** The layer's stored channels after the change; {} when there are none. */
    after:
      | {
          inbox?: 'ALL' | 'MINE' | 'NONE' | undefined;
          email?: 'ALL' | 'MINE' | 'NONE' | undefined;
          slack?: 'ALL' | 'MINE' | 'NONE' | undefined;
        }
      | {
          timeZone: string;
          quietHours?:
            | Array<{
                days: Array<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'>;
                start: string;
                end: string;
                channels: Array<'inbox' | 'email' | 'slack'>;
              }>
            | undefined;
          snoozeUntil?: string | null | undefined;
          digest?:
            | {
                channels: Array<'inbox' | 'email' | 'slack'>;
                cadence: 'daily' | 'weekly';
                at: string;
                day?: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun' | undefined;
              }
            | undefined;
        }
      | null;
  }>;
  /** Present when more changes follow: pass it as `cursor` to read the next page. */
  nextCursor?: string | undefined;
};

/** `data` of setPolicy. */
export type SetPolicyInput = {
  organizationId: string;
  policy: {
    channels?:
      | {
          inbox?:
            | {
                value: 'ALL' | 'MINE' | 'NONE';
                locked?: boolean | undefined;
              }
            | undefined;
          email?:
            | {
                value: 'ALL' | 'MINE' | 'NONE';
                locked?: boolean | undefined;
              }
            | undefined;
          slack?:
            | {
                value: 'ALL' | 'MINE' | 'NONE';
                locked?: boolean | undefined;
              }
            | undefined;
        }
      | undefined;
    categories?:
      | {
          [key: string]: {
            label: string;
            description?: string | undefined;
            labels?:
              | {
                  [key: string]: string;
                }
              | undefined;
            descriptions?:
              | {
                  [key: string]: string;
                }
              | undefined;
            channels?:
              | {
                  inbox?:
                    | {
                        value: 'ALL' | 'MINE' | 'NONE';
                        locked?: boolean | undefined;
                      }
                    | undefined;
                  email?:
                    | {
                        value: 'ALL' | 'MINE' | 'NONE';
                        locked?: boolean | undefined;
                      }
                    | undefined;
                  slack?:
                    | {
                        value: 'ALL' | 'MINE' | 'NONE';
                        locked?: boolean | undefined;
                      }
                    | undefined;
                }
              | undefined;
          };
        }
      | undefined;
  };
  /** The version the policy was read at (0: there is none yet); the set applies only if it still is. */
  expectedVersion?: number | undefined;
};

/** `result.data` of setPolicy. */
export type SetPolicyResult = {
  /** The new version: 1 for the first policy, one more at each set. */
  version: number;
  /** ISO-8601 UTC time. */
  updatedAt: string;
};

/** `data` of getPolicy. */
export type GetPolicyInput = {
  organizationId: string;
};

/** `result.data` of getPolicy. */
export type GetPolicyResult = {
  policy: {
    channels?:
      | {
          inbox?:
            | {
                value: 'ALL' | 'MINE' | 'NONE';
                locked?: boolean | undefined;
              }
            | undefined;
          email?:
            | {
                value: 'ALL' | 'MINE' | 'NONE';
                locked?: boolean | undefined;
              }
            | undefined;
          slack?:
            | {
                value: 'ALL' | 'MINE' | 'NONE';
                locked?: boolean | undefined;
              }
            | undefined;
        }
      | undefined;
    categories?:
      | {
          [key: string]: {
            label: string;
            description?: string | undefined;
            labels?:
              | {
                  [key: string]: string;
                }
              | undefined;
            descriptions?:
              | {
                  [key: string]: string;
                }
              | undefined;
            channels?:
              | {
                  inbox?:
                    | {
                        value: 'ALL' | 'MINE' | 'NONE';
                        locked?: boolean | undefined;
                      }
                    | undefined;
                  email?:
                    | {
                        value: 'ALL' | 'MINE' | 'NONE';
                        locked?: boolean | undefined;
                      }
                    | undefined;
                  slack?:
                    | {
                        value: 'ALL' | 'MINE' | 'NONE';
                        locked?: boolean | undefined;
                      }
                    | undefined;
                }
              | undefined;
          };
        }
      | undefined;
  };
  /** 0 when the organization has no policy. */
  version: number;
  /** ISO-8601 UTC time. */
  updatedAt?: string | undefined;
  /** The api key that set it. */
  updatedBy?: string | undefined;
};

/** `data` of setBranding. */
export type SetBrandingInput = {
  organizationId: string;
  /** The whole branding, or null to remove it. */
  branding: {
    /** The organization’s name as people know it: the pages’ title and heading. */
    displayName: string;
    /** The logo shown above the heading, with the display name as its text alternative. */
    logo?:
      | {
          contentType: 'image/png' | 'image/jpeg' | 'image/webp';
          data: string;
        }
      | undefined;
    /** The colour of links and buttons. */
    accentColor?: string | undefined;
    /** The pages’ language when neither the link’s locale nor the browser’s Accept-Language names one they speak. */
    defaultLocale?: 'en' | 'de' | 'fr' | 'es' | 'pt-BR' | 'ja' | 'ar' | undefined;
    /** Linked at the foot of every page. */
    supportUrl?: string | undefined;
    /** Linked at the foot of every page. */
    privacyUrl?: string | undefined;
    /** The origins of the organization’s app that may frame the preference page (`frame-ancestors`); none: no framing. */
    embedOrigins?: string[] | undefined;
  } | null;
};

/** `result.data` of setBranding. */
export type SetBrandingResult = {
  /** ISO-8601 UTC time. */
  updatedAt: string;
};

/** `data` of getBranding. */
export type GetBrandingInput = {
  organizationId: string;
};

/** `result.data` of getBranding. */
export type GetBrandingResult = {
  /** null when the organization has none. */
  branding: {
    displayName: string;
    logo?:
      | {
          contentType: 'image/png' | 'image/jpeg' | 'image/webp';
          data: string;
        }
      | undefined;
    accentColor?: string | undefined;
    defaultLocale?: 'en' | 'de' | 'fr' | 'es' | 'pt-BR' | 'ja' | 'ar' | undefined;
    supportUrl?: string | undefined;
    privacyUrl?: string | undefined;
    embedOrigins?: string[] | undefined;
  } | null;
};

/** `data` of migrateDocument. `documentId` and `newDocumentId` must differ. */
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
  completedAt?: string | undefined;
  /** Why the migration failed (status failed). */
  error?: string | undefined;
};

/** `data` of eraseUser. */
export type EraseInput = {
  organizationId: string;
  userId: string;
};

/** `result.data` of eraseUser. */
export type EraseResult = {
  /** Unique, sortable by creation time. */
  erasureId: string;
};

/** `data` of getErasureStatus. */
export type ErasureStatusInput = {
  organizationId: string;
  erasureId: string;
};

/** `result.data` of getErasureStatus. */
export type ErasureStatusResult = {
  erasureId: string;
  organizationId: string;
  userId: string;
  status: 'pending' | 'in_progress' | 'completed' | 'failed';
  /** The user's stored entries (documents and the organization level) erased so far. */
  erased: number;
  /** ISO-8601 UTC time. */
  createdAt: string;
  /** ISO-8601 UTC time. */
  updatedAt: string;
  /** ISO-8601 UTC time. */
  completedAt?: string | undefined;
};

/** `data` of exportUser. */
export type UserExportInput = {
  organizationId: string;
  userId: string;
  /** `nextCursor` of the previous page. */
  cursor?: string | undefined;
};

/** `result.data` of exportUser. */
export type UserExportResult = {
  organizationId: string;
  userId: string;
  /** ISO-8601 UTC time. */
  exportedAt: string;
  records: Array<
    | {
        kind: 'entry';
        documentId: string | null;
        scope: 'document' | 'organization';
        config: {
          inbox?: 'ALL' | 'MINE' | 'NONE' | undefined;
          email?: 'ALL' | 'MINE' | 'NONE' | undefined;
          slack?: 'ALL' | 'MINE' | 'NONE' | undefined;
        };
        categories: {
          [key: string]: {
            inbox?: 'ALL' | 'MINE' | 'NONE' | undefined;
            email?: 'ALL' | 'MINE' | 'NONE' | undefined;
            slack?: 'ALL' | 'MINE' | 'NONE' | undefined;
          };
        };
        updatedAt: string;
      }
    | {
        kind: 'schedule';
        schedule: {
          timeZone: string;
          quietHours?:
            | Array<{
                days: Array<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'>;
                start: string;
                end: string;
                channels: Array<'inbox' | 'email' | 'slack'>;
              }>
            | undefined;
          snoozeUntil?: string | null | undefined;
          digest?:
            | {
                channels: Array<'inbox' | 'email' | 'slack'>;
                cadence: 'daily' | 'weekly';
                at: string;
                day?: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun' | undefined;
              }
            | undefined;
        };
      }
    | {
        changeId: string;
        organizationId: string;
        userId: string;
        documentId: string | null;
        scope: 'document' | 'organization' | 'schedule';
        category: string | null;
        cause: 'set' | 'reset' | 'migration' | 'erasure' | 'link' | 'import';
        changedAt: string;
        changedBy: string;
        evidence:
          | {
              via: 'api';
              source?: string | undefined;
              capturedAt?: string | undefined;
              textVersion?: string | undefined;
              textSha256?: string | undefined;
              ipAddress?: string | undefined;
              userAgent?: string | undefined;
            }
          | {
              via: 'link' | 'page';
              keyId: string;
              issuedAt?: string | undefined;
              pageVersion?: string | undefined;
              ipAddress?: string | undefined;
              userAgent?: string | undefined;
            }
          | {
              via: 'migration';
              migrationId: string;
            }
          | {
              via: 'erasure';
              erasureId: string;
            }
          | {
              via: 'import';
              importId: string;
              source?: string | undefined;
              capturedAt?: string | undefined;
              textVersion?: string | undefined;
              textSha256?: string | undefined;
              ipAddress?: string | undefined;
              userAgent?: string | undefined;
            };
        before:
          | {
              inbox?: 'ALL' | 'MINE' | 'NONE' | undefined;
              email?: 'ALL' | 'MINE' | 'NONE' | undefined;
              slack?: 'ALL' | 'MINE' | 'NONE' | undefined;
            }
          | {
              timeZone: string;
              quietHours?:
                | Array<{
                    days: Array<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'>;
                    start: string;
                    end: string;
                    channels: Array<'inbox' | 'email' | 'slack'>;
                  }>
                | undefined;
              snoozeUntil?: string | null | undefined;
              digest?:
                | {
                    channels: Array<'inbox' | 'email' | 'slack'>;
                    cadence: 'daily' | 'weekly';
                    at: string;
                    day?: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun' | undefined;
                  }
                | undefined;
            }
          | null;
        after:
          | {
              inbox?: 'ALL' | 'MINE' | 'NONE' | undefined;
              email?: 'ALL' | 'MINE' | 'NONE' | undefined;
              slack?: 'ALL' | 'MINE' | 'NONE' | undefined;
            }
          | {
              timeZone: string;
              quietHours?:
                | Array<{
                    days: Array<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'>;
                    start: string;
                    end: string;
                    channels: Array<'inbox' | 'email' | 'slack'>;
                  }>
                | undefined;
              snoozeUntil?: string | null | undefined;
              digest?:
                | {
                    channels: Array<'inbox' | 'email' | 'slack'>;
                    cadence: 'daily' | 'weekly';
                    at: string;
                    day?: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun' | undefined;
                  }
                | undefined;
            }
          | null;
        kind: 'change';
      }
    | {
        kind: 'consentText';
        sha256: string;
        text: string;
      }
    | {
        kind: 'linkRevocation';
        revokedBefore: string;
      }
    | {
        erasureId: string;
        organizationId: string;
        userId: string;
        status: 'pending' | 'in_progress' | 'completed' | 'failed';
        erased: number;
        createdAt: string;
        updatedAt: string;
        completedAt?: string | undefined;
        kind: 'erasure';
      }
  >;
  /** Present while more records follow: pass it as `cursor`. */
  nextCursor?: string | undefined;
};

/** `data` of createExport. */
export type CreateExportInput = {
  organizationId: string;
  /** `jsonl` or `csv`. */
  format: 'jsonl' | 'csv';
  /** Only these documents (1 to 30); without, the whole organization, its organization level included. */
  documentIds?: string[] | undefined;
};

/** `result.data` of createExport. */
export type CreateExportResult = {
  /** Unique, sortable by creation time. */
  exportId: string;
};

/** `data` of getExportStatus. */
export type ExportStatusInput = {
  organizationId: string;
  exportId: string;
};

/** `result.data` of getExportStatus. */
export type ExportStatusResult = {
  exportId: string;
  organizationId: string;
  format: 'jsonl' | 'csv';
  status: 'pending' | 'in_progress' | 'completed' | 'failed';
  /** Rows written to the file so far. */
  rows: number;
  /** Once completed: a presigned GET of the file, valid 1 hour, issued anew by each call. */
  downloadUrl?: string | undefined;
  /** ISO-8601 UTC time. */
  downloadExpiresAt?: string | undefined;
  /** ISO-8601 UTC time. */
  createdAt: string;
  /** ISO-8601 UTC time. */
  updatedAt: string;
  /** ISO-8601 UTC time. */
  completedAt?: string | undefined;
};

/** `data` of createImport. */
export type CreateImportInput = {
  organizationId: string;
  /** `jsonl`, `csv`, `knock` or `novu`. */
  format: 'jsonl' | 'csv' | 'knock' | 'novu';
  /** Check and count every row, write nothing (default false). */
  dryRun?: boolean | undefined;
  /** `gzip`: the uploaded file is gzip-compressed. */
  compression?: 'gzip' | undefined;
};

/** `result.data` of createImport. */
export type CreateImportResult = {
  /** Unique, sortable by creation time. */
  importId: string;
  /** A presigned PUT of the file, valid 1 hour; S3 refuses a file over 5 GB. */
  uploadUrl: string;
  /** ISO-8601 UTC time. */
  uploadExpiresAt: string;
};

/** `data` of getImportStatus. */
export type ImportStatusInput = {
  organizationId: string;
  importId: string;
};

/** `result.data` of getImportStatus. */
export type ImportStatusResult = {
  importId: string;
  organizationId: string;
  format: 'jsonl' | 'csv' | 'knock' | 'novu';
  dryRun: boolean;
  status: 'waiting_upload' | 'pending' | 'in_progress' | 'completed' | 'failed';
  /** Rows of the file read so far (blank lines aside; a CSV header is not a row). */
  rowsRead: number;
  /** Rows that changed what is stored (or would, in a dry run). */
  rowsApplied: number;
  /** Rows whose values were already stored: nothing written, nothing in the history. */
  rowsUnchanged: number;
  /** Rows refused, each with its line and reason in the report. */
  rowsRejected: number;
  /** Applied knock or novu rows that held what has no equivalent here (reported, not applied). */
  rowsPartlyMapped: number;
  /** The first 100 rejected rows: `{line, message}`. */
  errors: Array<{
    line: number;
    message: string;
  }>;
  /** Why a failed import stopped. */
  error?: string | undefined;
  /** Once ended, with rows to report: a presigned GET of the report, valid 1 hour. */
  errorReportUrl?: string | undefined;
  /** ISO-8601 UTC time. */
  createdAt: string;
  /** ISO-8601 UTC time. */
  updatedAt: string;
  /** ISO-8601 UTC time. */
  completedAt?: string | undefined;
};

/** `data` of createLinks. */
export type CreateLinksInput = {
  organizationId: string;
  /** The users the email goes to: one set of links each. */
  userIds: string[];
  /** The document the email is about: the unsubscribe link acts on that document only. */
  documentId?: string | undefined;
  /** The notification's category: the unsubscribe link acts on that category only. */
  category?: string | undefined;
  /** The channel the unsubscribe link turns off (default `email`). */
  channel?: 'inbox' | 'email' | 'slack' | undefined;
  /** How long the links work, in days (1 to 365, default 90). */
  expiresInDays?: number | undefined;
  /** In place of expiresInDays (not both): how long the links work, in minutes (5 to 1440), for a link an app opens in its own UI at once. */
  expiresInMinutes?: number | undefined;
  locale?: string | undefined;
};

/** `result.data` of createLinks. One entry per distinct user id, keyed by that id. */
export type CreateLinksResult = {
  [key: string]: {
    /** Opens a page that offers to unsubscribe; a POST of `List-Unsubscribe=One-Click` to it unsubscribes at once. */
    unsubscribeUrl: string;
    /** Opens the user's preference page. */
    preferencesUrl: string;
    /** ISO-8601 UTC time. The links answer a "this link does not work" page from then on. */
    expiresAt: string;
    /** The email headers of RFC 8058, ready to add as they are. */
    headers: {
      'List-Unsubscribe': string;
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click';
    };
  };
};

/** `data` of revokeLinks. */
export type RevokeLinksInput = {
  organizationId: string;
  userIds: string[];
};

/** `result.data` of revokeLinks. */
export type RevokeLinksResult = {
  /** ISO-8601 UTC time. Links of these users made before it no longer work. */
  revokedBefore: string;
};

/** `data` of setWebhooks. */
export type SetWebhooksInput = {
  organizationId: string;
  endpoints: Array<{
    /** The endpoint id (made by the service): name it to keep an endpoint, its secret and its deliveries. */
    id?: string | undefined;
    /** https only; a public host. */
    url: string;
    /** A subset of preference.changed, policy.changed, migration.completed, migration.failed, user.erased, import.completed, import.failed, export.completed; omitted: all of them. */
    eventTypes?:
      | Array<
          | 'preference.changed'
          | 'policy.changed'
          | 'migration.completed'
          | 'migration.failed'
          | 'user.erased'
          | 'import.completed'
          | 'import.failed'
          | 'export.completed'
        >
      | undefined;
    description?: string | undefined;
    /** A disabled endpoint receives nothing. */
    disabled?: boolean | undefined;
  }>;
};

/** `result.data` of setWebhooks. */
export type SetWebhooksResult = {
  endpoints: Array<{
    /** The endpoint id (made by the service): name it to keep an endpoint, its secret and its deliveries. */
    id: string;
    url: string;
    /** A subset of preference.changed, policy.changed, migration.completed, migration.failed, user.erased, import.completed, import.failed, export.completed; omitted: all of them. */
    eventTypes: Array<
      | 'preference.changed'
      | 'policy.changed'
      | 'migration.completed'
      | 'migration.failed'
      | 'user.erased'
      | 'import.completed'
      | 'import.failed'
      | 'export.completed'
    >;
    description?: string | undefined;
    /** A disabled endpoint receives nothing. */
    disabled: boolean;
    /** `requested` (a set), `gone` (the endpoint answered 410), `failing` (every attempt failed for 5 days). */
    disabledReason?: 'requested' | 'gone' | 'failing' | undefined;
    /** A new endpoint only, this once: the secret that signs its deliveries. */
    secret?: string | undefined;
  }>;
};

/** `data` of getWebhooks. */
export type GetWebhooksInput = {
  organizationId: string;
};

/** `result.data` of getWebhooks. */
export type GetWebhooksResult = {
  endpoints: Array<{
    /** The endpoint id (made by the service): name it to keep an endpoint, its secret and its deliveries. */
    id: string;
    url: string;
    /** A subset of preference.changed, policy.changed, migration.completed, migration.failed, user.erased, import.completed, import.failed, export.completed; omitted: all of them. */
    eventTypes: Array<
      | 'preference.changed'
      | 'policy.changed'
      | 'migration.completed'
      | 'migration.failed'
      | 'user.erased'
      | 'import.completed'
      | 'import.failed'
      | 'export.completed'
    >;
    description?: string | undefined;
    /** A disabled endpoint receives nothing. */
    disabled: boolean;
    disabledReason?: 'requested' | 'gone' | 'failing' | undefined;
  }>;
};

/** `data` of rotateWebhookSecret. */
export type RotateWebhookSecretInput = {
  organizationId: string;
  endpointId: string;
};

/** `result.data` of rotateWebhookSecret. */
export type RotateWebhookSecretResult = {
  /** The new secret. */
  secret: string;
};

/** `data` of getWebhookDeliveries. */
export type WebhookDeliveriesInput = {
  organizationId: string;
  endpointId: string;
  cursor?: string | undefined;
};

/** `result.data` of getWebhookDeliveries. */
export type WebhookDeliveriesResult = {
  deliveries: Array<{
    eventId: string;
    type:
      | 'preference.changed'
      | 'policy.changed'
      | 'migration.completed'
      | 'migration.failed'
      | 'user.erased'
      | 'import.completed'
      | 'import.failed'
      | 'export.completed';
    attempt: number;
    /** null when no answer came. */
    statusCode: number | null;
    durationMs: number;
    /** ISO-8601 UTC time. */
    attemptedAt: string;
    /** ISO-8601 UTC time. Present when another attempt is planned. */
    nextAttemptAt?: string | undefined;
  }>;
  nextCursor?: string | undefined;
};

/** Each operation's `data` and `result.data`, by operationId. */
export interface OperationTypes {
  setConfig: { input: SetConfigInput; result: SetConfigResult };
  getConfig: { input: GetConfigInput; result: GetConfigResult };
  setSchedule: { input: SetScheduleInput; result: SetScheduleResult };
  getSchedule: { input: GetScheduleInput; result: GetScheduleResult };
  resolveConfig: { input: ResolveConfigInput; result: ResolveConfigResult };
  resetConfig: { input: ResetConfigInput; result: ResetConfigResult };
  getConfigHistory: { input: ConfigHistoryInput; result: ConfigHistoryResult };
  setPolicy: { input: SetPolicyInput; result: SetPolicyResult };
  getPolicy: { input: GetPolicyInput; result: GetPolicyResult };
  setBranding: { input: SetBrandingInput; result: SetBrandingResult };
  getBranding: { input: GetBrandingInput; result: GetBrandingResult };
  migrateDocument: { input: MigrateInput; result: MigrateResult };
  getMigrationStatus: { input: MigrationStatusInput; result: MigrationStatusResult };
  eraseUser: { input: EraseInput; result: EraseResult };
  getErasureStatus: { input: ErasureStatusInput; result: ErasureStatusResult };
  exportUser: { input: UserExportInput; result: UserExportResult };
  createExport: { input: CreateExportInput; result: CreateExportResult };
  getExportStatus: { input: ExportStatusInput; result: ExportStatusResult };
  createImport: { input: CreateImportInput; result: CreateImportResult };
  getImportStatus: { input: ImportStatusInput; result: ImportStatusResult };
  createLinks: { input: CreateLinksInput; result: CreateLinksResult };
  revokeLinks: { input: RevokeLinksInput; result: RevokeLinksResult };
  setWebhooks: { input: SetWebhooksInput; result: SetWebhooksResult };
  getWebhooks: { input: GetWebhooksInput; result: GetWebhooksResult };
  rotateWebhookSecret: { input: RotateWebhookSecretInput; result: RotateWebhookSecretResult };
  getWebhookDeliveries: { input: WebhookDeliveriesInput; result: WebhookDeliveriesResult };
}

/** `data` a client sends to an operation. */
export type OperationInput<Id extends OperationId> = OperationTypes[Id]['input'];
/** `result.data` an operation answers. */
export type OperationResult<Id extends OperationId> = OperationTypes[Id]['result'];
