import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createClient } from '#client/index.js';
import { dataPaths, readRunningServer, resolveDataDir } from '#local/data-dir.js';
import { isLoopbackHost } from '#local/loopback.js';
import { DOCUMENTS, ORGANIZATION_ID, type SeedSummary, seedOrganization } from './organization.js';

/**
 * `npm run seed`: writes a realistic organization into the local twin through the API, with
 * the typed client, so that config/get and a migration show something on the first try.
 */
export const USAGE = `Usage: npm run seed [-- --data-dir DIR] [--url URL --api-key KEY --token TOKEN]

Writes the organization "${ORGANIZATION_ID}" (20 users, ${DOCUMENTS.length} documents, organization- and
document-level settings, a policy of three categories with locks) into the local twin, then prints
what it wrote and curl commands to try.

Where it writes:
  - the server given by --url, with --api-key and --token (a local address only);
  - otherwise the \`npm start\` that serves the data directory, with its local credential;
  - otherwise the data directory itself: the seed starts the twin on it for the time it runs.

Options:
  --data-dir DIR    the local data directory (DATA_DIR, default .data/ in the repository)
  --url URL         the API of a running local twin, e.g. http://127.0.0.1:3000
  --api-key KEY     its API key (LOCAL_API_KEY), with --url
  --token TOKEN     its auth token (LOCAL_AUTH_TOKEN), with --url
  -h, --help        this text

Exit codes: 0 seeded, 1 the seeding failed (the message says why), 2 invalid command line.`;

const fail = (message: string): never => {
  console.error(`npm run seed: ${message}`);
  process.exit(2);
};

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

// The seed is for the twin: a deployed stage's data is not something to fill with examples.
const isLocal = (url: string) => URL.canParse(url) && isLoopbackHost(new URL(url).hostname);

interface Target {
  baseUrl: string;
  apiKey: string;
  token: string;
  /** How it was found, for the report. */
  via: string;
  /** Where the printed commands send requests, when not baseUrl (a server that stops with the seed). */
  tryUrl?: string;
  close?: () => Promise<void>;
}

const savedCredential = async (dataDir: string): Promise<{ apiKey?: string; token?: string }> => {
  try {
    return JSON.parse(await readFile(dataPaths(dataDir).credential, 'utf8'));
  } catch {
    return {};
  }
};

const findTarget = async (values: Record<string, string | undefined>): Promise<Target> => {
  const apiKey = values['api-key'] ?? process.env.LOCAL_API_KEY;
  const token = values.token ?? process.env.LOCAL_AUTH_TOKEN;
  if (values.url) {
    if (!isLocal(values.url)) fail(`${values.url} is not a local address; the seed only fills the local twin.`);
    if (!apiKey || !token) fail('--url needs --api-key and --token (or LOCAL_API_KEY and LOCAL_AUTH_TOKEN).');
    return {
      baseUrl: values.url as string,
      apiKey: apiKey as string,
      token: token as string,
      via: values.url as string,
    };
  }
  const dataDir = resolveDataDir(values['data-dir'] ? { DATA_DIR: values['data-dir'] } : process.env);
  const running = await readRunningServer(dataDir);
  if (running) {
    const saved = await savedCredential(dataDir);
    const key = apiKey ?? saved.apiKey;
    const secret = token ?? saved.token;
    if (!key || !secret) {
      fail(
        `the server on ${running.apiUrl} uses a credential that is not saved in ${dataDir}: set LOCAL_API_KEY and LOCAL_AUTH_TOKEN as for npm start.`,
      );
    }
    return {
      baseUrl: running.apiUrl,
      apiKey: key as string,
      token: secret as string,
      via: `the npm start on ${running.apiUrl}`,
    };
  }
  // No server: the twin itself, on the data directory, for as long as the seed runs.
  const { startLocalRuntime } = await import('#local/runtime.js');
  const runtime = await startLocalRuntime({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    apiKey,
    token,
    env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
    // Its port is gone once the seed ends: an env.sh naming it would send `source` nowhere.
    shellEnvFile: false,
  });
  return {
    baseUrl: runtime.baseUrl,
    apiKey: runtime.apiKey,
    token: runtime.token,
    via: `the data directory ${dataDir} (no server was running; \`npm start\` serves it)`,
    tryUrl: `http://127.0.0.1:${process.env.PORT ?? 3000}`,
    close: () => runtime.close(),
  };
};

const report = (summary: SeedSummary, target: Target, layers: string[]): string => {
  const auth = `-H 'content-type: application/json' -H ${shellQuote(`x-service-api-key: ${target.apiKey}`)} -H ${shellQuote(`x-service-auth-token: ${target.token}`)}`;
  const base = target.tryUrl ?? target.baseUrl;
  const curl = (path: string, data: unknown) => [
    `  curl -s ${base}${path} \\`,
    `    ${auth} \\`,
    `    -d ${shellQuote(JSON.stringify({ data }))}`,
  ];
  const width = Math.max(...summary.documents.map((id) => id.length), 'organization-level'.length);
  return [
    `Seeded organization "${summary.organizationId}" through ${target.via}:`,
    `  ${summary.users} users, ${summary.documents.length} documents`,
    `  ${'organization-level'.padEnd(width)}  ${summary.entries.organization} entries`,
    ...summary.documents.map((id) => `  ${id.padEnd(width)}  ${summary.entries.documents[id]} entries`),
    '',
    'Layers:',
    ...layers.map((layer) => `  - ${layer}`),
    '',
    `Try${target.tryUrl ? ', once `npm start` runs' : ''}: ada's settings (document, organization and default layers), then a migration:`,
    ...curl('/v2/notifications/config/get', {
      organizationId: summary.organizationId,
      userId: 'ada',
      documentIds: ['roadmap-2027', 'design-system'],
    }),
    `  # ada for security alerts, every layer shown: email and inbox come from the policy's lock`,
    ...curl('/v2/notifications/config/get', {
      organizationId: summary.organizationId,
      userId: 'ada',
      category: 'security',
      explain: true,
    }),
    ...curl('/v2/organizations/documents/migrate', {
      organizationId: summary.organizationId,
      documentId: 'launch-plan',
      newDocumentId: 'launch-plan-v2',
    }),
    `  # then its status: ${base}/v2/organizations/documents/migrate/status with the migrationId it answered`,
    '',
  ].join('\n');
};

const main = async () => {
  const { values } = (() => {
    try {
      return parseArgs({
        options: {
          'data-dir': { type: 'string' },
          url: { type: 'string' },
          'api-key': { type: 'string' },
          token: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
      });
    } catch (error) {
      return fail(`${(error as Error).message}\n\n${USAGE}`);
    }
  })();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const target = await findTarget(values as Record<string, string | undefined>);
  try {
    const client = createClient({ baseUrl: target.baseUrl, apiKey: target.apiKey, token: target.token });
    const summary = await seedOrganization(client);
    console.log(report(summary, target, summary.layers));
  } finally {
    await target.close?.();
  }
};

// The command line was fine: what failed is the seeding (exit 1, as the other tools do).
main().catch((error) => {
  console.error(`npm run seed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
