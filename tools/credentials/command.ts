import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { AwsCredential } from '#local/aws-credential.js';
import { DataDirLockedError, resolveDataDir } from '#local/data-dir.js';
import { TABLES } from '#service/tables.js';
import { identifier } from '#shared/api/identifiers.js';
import { DEFAULT_SCOPES, isScope, SCOPES, type Scope } from '#shared/api/scopes.js';
import {
  type Credential,
  hashToken,
  isActive,
  isWellFormedApiKey,
  MAX_RATE_PER_SECOND,
  newApiKey,
  newToken,
  type RateLimit,
} from '#shared/auth/credential.js';
import { DynamoCredentialStore } from '#shared/auth/dynamo-credential-store.js';
import { openLocalStore, regionalDynamoClient, twinCredential } from '../cli/local-store.js';
import {
  type CliIo,
  CommandError,
  describeError,
  exitOnError,
  isPrintable,
  parseCommandLine,
  printable,
  table,
  UsageError,
} from '../cli/output.js';

/**
 * `npm run credentials -- create|list|revoke`: the operators' tool for API credentials, in
 * the local store (the data directory's DynamoDB, or the running local server's) or, with
 * --table and --region, in a deployed credentials table.
 */
export const USAGE = `Usage: npm run credentials -- <command> [options]

Commands:
  create    create a credential; prints its api key and token (the token only this once)
  list      list credentials (token hashes shortened to a prefix)
  revoke    revoke a credential by api key (effective within the functions' cache time,
            credentialCacheSeconds, default 60 s)

create options:
  --organizations a,b     organizations it may use, comma-separated, or '*' for all
  --organization ID       one organization (repeatable; for ids that contain a comma)
  --name TEXT             a label for people (e.g. the calling service)
  --expires-in-days N     expires N days from now
  --expires-at TIME       expires at an ISO-8601 time (e.g. 2027-01-31T00:00:00Z, or with an
                          offset), or at midnight UTC of a date (2027-01-31)
  --scopes a,b            what it may do: read, write, resolve, migrate, erase, admin (admin holds
                          every scope); default read,write,resolve
  --rate-limit N          its own limit in requests per second (default: the deployment's)
  --burst N               requests it may make at once after a quiet spell (with --rate-limit;
                          default twice the rate)
revoke options:
  --api-key KEY           the credential to revoke

Where (default: the local store, see below):
  --table NAME [--region REGION] a deployed credentials table (stack output CredentialsTableName);
                                 AWS credentials and, without --region or AWS_REGION, the region
                                 come from the default provider chain (AWS_PROFILE, ~/.aws/config)
  --endpoint URL                 a DynamoDB endpoint, e.g. a local server's (table: credentials)
  --data-dir DIR                 the local data directory (DATA_DIR, default .data/ in the repository);
                                 while \`npm start\` runs on it, the command talks to that server's DynamoDB

Other:
  --json        machine-readable output
  -h, --help    this text

Exit codes: 0 done, 1 failed (e.g. unknown api key, AWS error), 2 invalid command line.`;

const OPTIONS = {
  organizations: { type: 'string' },
  organization: { type: 'string', multiple: true },
  name: { type: 'string' },
  'expires-in-days': { type: 'string' },
  'expires-at': { type: 'string' },
  scopes: { type: 'string' },
  'rate-limit': { type: 'string' },
  burst: { type: 'string' },
  'api-key': { type: 'string' },
  table: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseCommandLine<typeof OPTIONS>>['values'];

const COMMAND_OPTIONS: Record<string, (keyof typeof OPTIONS)[]> = {
  create: ['organizations', 'organization', 'name', 'expires-in-days', 'expires-at', 'scopes', 'rate-limit', 'burst'],
  list: [],
  revoke: ['api-key'],
};
const TARGET_OPTIONS: (keyof typeof OPTIONS)[] = ['table', 'region', 'endpoint', 'data-dir', 'json', 'help'];

interface Target {
  store: DynamoCredentialStore;
  description: string;
  close(): Promise<void>;
}

/** Where the command works; `creating`: a local store may be made for it (create), else it must exist. */
const openTarget = async (values: Values, env: NodeJS.ProcessEnv, creating: boolean): Promise<Target> => {
  if (values.table !== undefined || values.region !== undefined) {
    if (values.endpoint) throw new UsageError('--endpoint cannot be combined with --table/--region');
    if (values['data-dir']) throw new UsageError('--data-dir cannot be combined with --table/--region');
    const table = values.table;
    if (!table) throw new UsageError('--region needs --table NAME (the stack output CredentialsTableName)');
    const regional = await regionalDynamoClient(values.region, env);
    if (!regional) {
      throw new UsageError('--table needs a region: --region REGION, AWS_REGION, or a region in your AWS profile');
    }
    const { client, region } = regional;
    return {
      store: new DynamoCredentialStore(DynamoDBDocumentClient.from(client), table),
      description: `table ${table} in ${region}`,
      close: async () => client.destroy(),
    };
  }
  const local = (
    endpoint: string,
    credentials: AwsCredential,
    description: string,
    stop: () => Promise<void> = async () => {},
  ) => {
    const client = new DynamoDBClient({
      endpoint,
      region: 'local',
      credentials,
      maxAttempts: 2,
    });
    return {
      store: new DynamoCredentialStore(DynamoDBDocumentClient.from(client), TABLES.credentials.localName),
      description,
      close: async () => {
        client.destroy();
        await stop();
      },
    };
  };
  if (values.endpoint) {
    if (values['data-dir']) throw new UsageError('--data-dir cannot be combined with --endpoint');
    try {
      new URL(values.endpoint);
    } catch {
      throw new UsageError(`--endpoint ${JSON.stringify(values.endpoint)} is not a URL`);
    }
    return local(
      values.endpoint,
      await twinCredential(resolveDataDir(env), env),
      `local DynamoDB at ${values.endpoint}`,
    );
  }
  const store = await openLocalStore(values['data-dir'], env, { create: creating });
  return local(store.dynamoEndpoint, store.credentials, store.description, () => store.stop());
};

const parseOrganizations = (values: Values): string[] | '*' => {
  const listed = values.organizations === undefined ? [] : values.organizations.split(',').map((id) => id.trim());
  const all = [...listed, ...(values.organization ?? [])];
  if (all.length === 0) throw new UsageError("create needs --organizations a,b (or '*' for every organization)");
  if (all.includes('*')) {
    if (all.length > 1) throw new UsageError("'*' grants every organization and cannot be combined with others");
    return '*';
  }
  const schema = identifier('organization id');
  for (const id of all) {
    const parsed = schema.safeParse(id);
    if (!parsed.success)
      throw new UsageError(`invalid organization ${JSON.stringify(id)}: ${parsed.error.issues[0]?.message}`);
  }
  return [...new Set(all)];
};

/** An ISO-8601 date (midnight UTC) or date-time with seconds and Z or an offset, checked against the calendar. */
const ISO_TIME = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

/** The instant `text` names, or undefined: Date.parse alone takes "Jan 1 2030" and rolls 2030-02-30 into March. */
const isoTime = (text: string): number | undefined => (ISO_TIME.safeParse(text).success ? Date.parse(text) : undefined);

const parseExpiry = (values: Values, now: Date): string | undefined => {
  const days = values['expires-in-days'];
  const at = values['expires-at'];
  if (days !== undefined && at !== undefined) throw new UsageError('give --expires-in-days or --expires-at, not both');
  if (days !== undefined) {
    const n = Number(days);
    if (!Number.isFinite(n) || n <= 0 || n > 36_500)
      throw new UsageError(`--expires-in-days must be a positive number of days, not ${JSON.stringify(days)}`);
    return new Date(now.getTime() + n * 86_400_000).toISOString();
  }
  if (at !== undefined) {
    const time = isoTime(at);
    if (time === undefined) {
      throw new UsageError(
        `--expires-at ${printable(JSON.stringify(at))} is not an ISO-8601 time such as 2027-01-31T00:00:00Z ` +
          '(a date alone is midnight UTC; a time needs seconds, and Z or an offset)',
      );
    }
    if (time <= now.getTime()) throw new UsageError(`--expires-at ${at} is in the past`);
    return new Date(time).toISOString();
  }
  return undefined;
};

const parseScopes = (values: Values): Scope[] => {
  if (values.scopes === undefined) return [...DEFAULT_SCOPES];
  const listed = values.scopes.split(',').map((scope) => scope.trim());
  const unknown = listed.filter((scope) => !isScope(scope));
  if (listed.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--scopes takes a comma-separated list of ${SCOPES.join(', ')}; not ${JSON.stringify(unknown[0] ?? '')}`,
    );
  }
  return [...new Set(listed as Scope[])];
};

const wholeNumber = (value: string, option: string, max: number): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new UsageError(`--${option} must be a whole number from 1 to ${max}`);
  return n;
};

const parseRateLimit = (values: Values): RateLimit | undefined => {
  const rate = values['rate-limit'];
  if (rate === undefined) {
    if (values.burst !== undefined) throw new UsageError('--burst needs --rate-limit');
    return undefined;
  }
  const perSecond = wholeNumber(rate, 'rate-limit', MAX_RATE_PER_SECOND);
  const burst =
    values.burst === undefined ? perSecond * 2 : wholeNumber(values.burst, 'burst', MAX_RATE_PER_SECOND * 10);
  return { perSecond, burst };
};

const statusOf = (credential: Credential, now: Date) =>
  credential.revokedAt ? 'revoked' : isActive(credential, now) ? 'active' : 'expired';

const HASH_PREFIX = 8;

/** A credential as shown: the hash shortened, never the whole of it. */
const shown = (credential: Credential, now: Date) => ({
  apiKey: credential.apiKey,
  status: statusOf(credential, now),
  name: credential.name ?? null,
  organizationIds: credential.organizationIds,
  createdAt: credential.createdAt,
  expiresAt: credential.expiresAt ?? null,
  revokedAt: credential.revokedAt ?? null,
  // Absent on credentials made before scopes existed: they hold every scope.
  scopes: credential.scopes ?? [...SCOPES],
  rateLimit: credential.rateLimit ?? null,
  tokenHashPrefix: credential.tokenHash.slice(0, HASH_PREFIX),
});

const scopesText = (scopes: readonly Scope[]) => (scopes.includes('admin') ? 'admin (all)' : scopes.join(', '));
const rateText = (limit: RateLimit | null) => (limit ? `${limit.perSecond}/s, burst ${limit.burst}` : 'default');

// Identifiers may hold any character but control ones: shown escaped, so none can steer the terminal.
// An id with a comma, a quote or a space is quoted, so that "a,b" and c never read as a, b, c.
const organizationsText = (ids: string[] | '*') =>
  ids === '*' ? '* (all)' : printable(ids.map((id) => (/[\s,"]/.test(id) ? JSON.stringify(id) : id)).join(', '));

export const runCredentialsCommand = async (argv: string[], io: CliIo): Promise<number> => {
  const env = io.env ?? process.env;
  const now = (io.now ?? (() => new Date()))();
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseCommandLine(argv, OPTIONS);
  } catch (error) {
    return exitOnError('credentials', io, error, String);
  }
  const { values, positionals } = parsed;
  const [command, ...extra] = positionals;
  if (values.help || command === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  if (!command) {
    io.stderr(`credentials: a command is required (create, list or revoke).\n\n${USAGE}`);
    return 2;
  }
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) {
    io.stderr(`credentials: unknown command ${JSON.stringify(command)}; use create, list or revoke.`);
    return 2;
  }
  if (extra.length > 0) {
    io.stderr(`credentials: unexpected argument ${JSON.stringify(extra[0])}.`);
    return 2;
  }
  const misplaced = (Object.keys(values) as (keyof typeof OPTIONS)[]).find(
    (key) => !allowed.includes(key) && !TARGET_OPTIONS.includes(key),
  );
  if (misplaced) {
    io.stderr(`credentials: --${misplaced} does not apply to ${command}.`);
    return 2;
  }

  let target: Target | undefined;
  try {
    // Checked before anything is opened, so that a typo costs nothing.
    const organizations = command === 'create' ? parseOrganizations(values) : undefined;
    const expiresAt = command === 'create' ? parseExpiry(values, now) : undefined;
    const scopes = command === 'create' ? parseScopes(values) : undefined;
    const rateLimit = command === 'create' ? parseRateLimit(values) : undefined;
    if (command === 'revoke' && !values['api-key']) throw new UsageError('revoke needs --api-key KEY');
    if (values.name !== undefined && (values.name.length === 0 || values.name.length > 256)) {
      throw new UsageError('--name must be 1 to 256 characters');
    }
    if (values.name !== undefined && !isPrintable(values.name)) {
      throw new UsageError('--name must not hold control characters, line breaks or direction marks');
    }
    if (command === 'revoke' && !isWellFormedApiKey(values['api-key'])) {
      // Not a key any credential has (nor one DynamoDB could look up): said without asking it.
      throw new CommandError(`no credential with api key ${printable(JSON.stringify(values['api-key']))}`);
    }

    target = await openTarget(values, env, command === 'create');
    const { store } = target;
    if (command === 'create') {
      const apiKey = newApiKey();
      const token = newToken();
      const credential: Credential = {
        apiKey,
        tokenHash: hashToken(token),
        organizationIds: organizations as string[] | '*',
        createdAt: now.toISOString(),
        ...(expiresAt ? { expiresAt } : {}),
        ...(values.name ? { name: values.name } : {}),
        scopes: scopes as Scope[],
        ...(rateLimit ? { rateLimit } : {}),
      };
      await store.create(credential);
      if (values.json) {
        io.stdout(JSON.stringify({ ...shown(credential, now), token }, null, 2));
      } else {
        io.stdout(
          [
            `Created credential ${apiKey} in ${target.description}.`,
            `  organizations: ${organizationsText(credential.organizationIds)}`,
            `  scopes:        ${scopesText(scopes as Scope[])}`,
            `  rate limit:    ${rateText(rateLimit ?? null)}`,
            ...(credential.name ? [`  name:          ${printable(credential.name)}`] : []),
            `  expires:       ${credential.expiresAt ?? 'never'}`,
            '',
            `  x-service-api-key:    ${apiKey}`,
            `  x-service-auth-token: ${token}`,
            '',
            'Store the token now: it is shown only this once (only its SHA-256 is kept).',
          ].join('\n'),
        );
      }
    } else if (command === 'list') {
      const credentials = (await store.list()).map((c) => shown(c, now));
      if (values.json) {
        io.stdout(JSON.stringify(credentials, null, 2));
      } else if (credentials.length === 0) {
        io.stdout(`No credentials in ${target.description}.`);
      } else {
        io.stdout(
          `${credentials.length} credential(s) in ${target.description}:\n\n` +
            table([
              [
                'API KEY',
                'STATUS',
                'ORGANIZATIONS',
                'SCOPES',
                'RATE LIMIT',
                'NAME',
                'CREATED',
                'EXPIRES',
                'REVOKED',
                'TOKEN SHA-256',
              ],
              ...credentials.map((c) => [
                c.apiKey,
                c.status,
                organizationsText(c.organizationIds),
                scopesText(c.scopes),
                rateText(c.rateLimit),
                c.name === null ? '-' : printable(c.name),
                c.createdAt,
                c.expiresAt ?? '-',
                c.revokedAt ?? '-',
                `${c.tokenHashPrefix}…`,
              ]),
            ]),
        );
      }
    } else {
      const apiKey = values['api-key'] as string;
      const revoked = await store.revoke(apiKey, now.toISOString());
      if (!revoked)
        throw new CommandError(
          `no credential with api key ${printable(JSON.stringify(apiKey))} in ${target.description}`,
        );
      const credential = await store.get(apiKey);
      const at = credential?.revokedAt ?? now.toISOString();
      if (values.json) {
        io.stdout(JSON.stringify(credential ? shown(credential, now) : { apiKey, revokedAt: at }, null, 2));
      } else {
        io.stdout(
          `Revoked ${apiKey} (revoked at ${at}) in ${target.description}.\n` +
            `Warm functions may accept it for up to their cache time (CREDENTIAL_CACHE_TTL_SECONDS, default 60 s)${
              values.table === undefined ? '; restarting npm start ends that at once.' : '.'
            }`,
        );
      }
    }
    return 0;
  } catch (error) {
    return exitOnError('credentials', io, error, (e) =>
      e instanceof DataDirLockedError
        ? e.message
        : describeError(e, target?.description ?? 'the credential store', 'the credentials table'),
    );
  } finally {
    await target?.close();
  }
};
