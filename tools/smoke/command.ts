import { parseArgs } from 'node:util';
import type { CliIo } from '../cli/output.js';
import { type CheckResult, DEFAULT_MIGRATION_TIMEOUT_MS, DEFAULT_ORGANIZATION, runSmoke } from './checks.js';

export const USAGE = `Usage: npm run smoke -- [--url URL] [options]   (key and token from API_KEY and AUTH_TOKEN)

Calls every route of a deployed stage (or of npm start) through the typed client and checks
each answer: config set, get, resolve and reset, a migration started, read and waited for, links
made for an email, their pages and one-click unsubscribe, the links revoked, a user erased, the
organization's policy, a wrong token refused, an unknown route answered NOT_FOUND. Writes only
under one organization, with user and document ids unique to the run, and resets what it wrote
at the end. The credential needs that organization and the admin scope (policy/set is admin's).

Options:
  --url URL            the API's base URL (the stack's ApiUrl output; default BASE_URL)
  --key KEY            an API key (default API_KEY)
  --token TOKEN        its token (default AUTH_TOKEN, which is better: npm prints the command
                       line it runs, and ps shows it to every user of the machine)
  --organization ID    where the checks write (default ${DEFAULT_ORGANIZATION})
  --timeout SECONDS    how long the migration may take (default ${DEFAULT_MIGRATION_TIMEOUT_MS / 1000})
  -h, --help           this text

Exit codes: 0 every check passed, 1 a check deviated (each one says how), 2 invalid command line.`;

type SmokeIo = CliIo & { fetch?: typeof fetch };

const line = (check: CheckResult) =>
  `${check.ok ? 'ok  ' : 'FAIL'}  ${check.name} (${Math.round(check.ms)} ms)${check.ok ? '' : `\n      ${check.detail}`}`;

/** `npm run smoke`: the exit code. */
export const runSmokeCommand = async (args: string[], io: SmokeIo): Promise<number> => {
  const env = io.env ?? process.env;
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        token: { type: 'string' },
        organization: { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    io.stderr(`npm run smoke: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const url = (values.url as string | undefined) ?? env.BASE_URL;
  const key = (values.key as string | undefined) ?? env.API_KEY;
  const token = (values.token as string | undefined) ?? env.AUTH_TOKEN;
  const timeout = Number(values.timeout ?? DEFAULT_MIGRATION_TIMEOUT_MS / 1000);
  const missing = [
    !url && '--url (or BASE_URL)',
    !key && 'API_KEY (or --key)',
    !token && 'AUTH_TOKEN (or --token)',
  ].filter(Boolean);
  const problems = [
    ...(missing.length ? [`missing ${missing.join(', ')}`] : []),
    ...(url && !URL.canParse(url) ? [`--url ${JSON.stringify(url)} is not a URL`] : []),
    ...(!Number.isFinite(timeout) || timeout <= 0 ? ['--timeout must be a positive number of seconds'] : []),
  ];
  if (problems.length > 0 || !url || !key || !token) {
    io.stderr(`npm run smoke: ${problems.join('; ')}\n\n${USAGE}`);
    return 2;
  }

  if (values.token !== undefined) {
    io.stderr("npm run smoke: --token is visible in npm's echo of the command and in ps; set AUTH_TOKEN instead.");
  }
  const organization = (values.organization as string | undefined) ?? DEFAULT_ORGANIZATION;
  io.stdout(`Smoke test of ${url} (organization ${organization})`);
  const report = await runSmoke({
    baseUrl: url,
    apiKey: key,
    token,
    organizationId: organization,
    migrationTimeoutMs: timeout * 1000,
    ...(io.fetch ? { fetch: io.fetch } : {}),
    onCheck: (check) => io.stdout(line(check)),
  });
  const failed = report.checks.filter((check) => !check.ok);
  // An operation is covered when every check that called it passed.
  const failing = new Set(failed.flatMap((check) => check.operationIds));
  const passing = report.covered.filter((id) => !failing.has(id));
  io.stdout(
    `\nRun ${report.runId}: ${report.checks.length} checks, ${failed.length} failed; ` +
      `operations covered: ${passing.join(', ') || 'none'}${failing.size ? `; failing: ${[...failing].join(', ')}` : ''}.`,
  );
  if (failed.length > 0) {
    io.stderr(
      `npm run smoke: ${failed.length} check(s) failed:\n${failed.map((c) => `  ${c.name}: ${c.detail}`).join('\n')}`,
    );
    return 1;
  }
  return 0;
};
