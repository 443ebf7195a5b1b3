import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { lambdaContext } from '#local/lambda-context.js';
import { startLocalRuntime } from '#local/runtime.js';
import { functionSpecOf } from '#service/routes.js';
import { hashToken } from '#shared/auth/credential.js';
import type { ApiContext } from '#shared/edge/http-route.js';
import { operationById } from '#tools/openapi/operations.js';
import { apiEvent } from '../support/api-events.js';
import { CallCounter } from './counting.js';
import { cpuSecondsSince, projectedSecondsFor } from './lambda-cpu.js';
import { goal, type Section, section } from './report.js';
import { fmtNum, fmtRatio, ratio } from './stats.js';

const GET = operationById('getConfig');
/** A credential of one request a minute: every measured request of it is over its limit. */
const LIMITED = { apiKey: 'ak_bench_rate_limited', token: 'st_bench-rate-limited-token' };
/** Invocations measured per case, after as many unmeasured ones. */
const DEFAULT_INVOCATIONS = 2_000;
/** A refusal that reads nothing may cost at most this share of a 200 config/get's CPU time. */
const MAX_NO_READ_REFUSAL_RATIO = 0.25;

interface Case {
  name: string;
  headers: (service: { apiKey: string; token: string }) => Record<string, string>;
  /** Scored against MAX_NO_READ_REFUSAL_RATIO: a refusal decided on the headers alone. */
  noRead?: boolean;
}

const CASES: Case[] = [
  { name: '401, no credential headers', headers: () => ({}), noRead: true },
  {
    name: '401, malformed API key',
    headers: ({ token }) => ({ 'x-service-api-key': 'ak with spaces', 'x-service-auth-token': token }),
    noRead: true,
  },
  {
    // Unknown keys are remembered 5 s: a repeated one costs a read per instance every 5 s.
    name: '401, unknown API key (remembered as unknown)',
    headers: ({ token }) => ({ 'x-service-api-key': 'ak_000000000000000000000000', 'x-service-auth-token': token }),
    noRead: true,
  },
  {
    // Over its rate the credential is refused locally until its Retry-After: no bucket update each time.
    name: "429, over the credential's rate limit",
    headers: () => ({ 'x-service-api-key': LIMITED.apiKey, 'x-service-auth-token': LIMITED.token }),
    noRead: true,
  },
  {
    name: '401, wrong token (credential cached)',
    headers: ({ apiKey }) => ({ 'x-service-api-key': apiKey, 'x-service-auth-token': 'st_wrong' }),
  },
  {
    name: '200, config/get (credential cached, one batched read)',
    headers: ({ apiKey, token }) => ({ 'x-service-api-key': apiKey, 'x-service-auth-token': token }),
  },
];

/**
 * What a refused request costs. The API's routes (ANY) and `$default` have no gateway authorizer,
 * so every request, authenticated or not, is a Lambda invocation: a 401 must be cheap. The
 * config/get handler is invoked directly in this process (no HTTP server in between) against the
 * twin's DynamoDB, which runs in its own process: the CPU time measured here is the function's
 * alone, projected to its deployed memory as Lambda would run it.
 */
export const rejectedBench = async ({ invocations = DEFAULT_INVOCATIONS } = {}): Promise<Section[]> => {
  const service = await startLocalRuntime({
    host: '127.0.0.1',
    port: 0,
    inMemory: true,
    // No stream polling in the measured process: the change publisher is a function of its own on AWS.
    changePublisher: false,
    env: { CREDENTIAL_CACHE_TTL_SECONDS: '60', POWERTOOLS_LOG_LEVEL: 'SILENT' },
  });
  try {
    // The modules the runtime loaded: the same handler and clients.
    const { handler } = await import('#functions/get-config.js');
    const { documentClient } = await import('#shared/platform/aws-clients.js');
    const counter = new CallCounter(service.tables.credentials, { capacity: false }).attachDynamo(documentClient);
    await service.doc.send(
      new PutCommand({
        TableName: service.tables.credentials,
        Item: {
          apiKey: LIMITED.apiKey,
          tokenHash: hashToken(LIMITED.token),
          organizationIds: '*',
          createdAt: new Date().toISOString(),
          rateLimit: { perSecond: 1 / 60, burst: 1 },
        },
      }),
    );
    const data = { organizationId: 'bench-org', userId: 'bench-user', documentIds: ['doc-1'] };
    const invoke = (headers: Record<string, string>) =>
      handler(
        apiEvent(GET.path, { headers, body: { data } }) as APIGatewayProxyEventV2,
        lambdaContext({ functionName: 'bench-getConfig' }) as ApiContext,
      );

    const rows: { name: string; status: number; cpuMs: number; reads: number; noRead: boolean }[] = [];
    for (const c of CASES) {
      const headers = c.headers(service);
      for (let i = 0; i < invocations; i++) await invoke(headers);
      const from = counter.mark();
      const cpu = process.cpuUsage();
      let last = await invoke(headers);
      for (let i = 1; i < invocations; i++) last = await invoke(headers);
      const cpuMs = (cpuSecondsSince(cpu) / invocations) * 1000;
      const reads = counter.summary(from).calls / invocations;
      rows.push({ name: c.name, status: last.statusCode ?? 0, cpuMs, reads, noRead: c.noRead === true });
    }

    const s = section('rejected', 'Refused requests: CPU time of a 401 or a 429 against a 200');
    const ok = rows.at(-1)?.cpuMs ?? Number.NaN;
    s.tables.push({
      title: `config/get handler, ${fmtNum(invocations)} invocations per case`,
      columns: ['Case', 'Status', 'CPU per invocation', 'At 512 MB', 'vs the 200', 'DynamoDB calls'],
      rows: rows.map((row) => [
        row.name,
        row.status,
        `${fmtNum(row.cpuMs * 1000)} µs`,
        `${(projectedSecondsFor(row.cpuMs / 1000, functionSpecOf(GET)) * 1000).toFixed(2)} ms`,
        fmtRatio(ratio(row.cpuMs, ok)),
        fmtNum(row.reads, 2),
      ]),
    });
    for (const row of rows.filter((r) => r.noRead)) {
      const share = ratio(row.cpuMs, ok);
      s.goals.push(
        goal(
          `${row.name}: CPU vs the 200`,
          fmtRatio(share),
          `<= ${fmtRatio(MAX_NO_READ_REFUSAL_RATIO)}`,
          share <= MAX_NO_READ_REFUSAL_RATIO,
        ),
      );
      s.goals.push(goal(`${row.name}: DynamoDB calls`, fmtNum(row.reads, 2), '0', row.reads === 0));
    }
    s.notes.push(
      'Lambda bills each of these invocations at its duration (1 ms minimum); the gateway charges per request whatever the answer.',
      'Metrics are off outside Lambda: a deployed 401 also writes one EMF line (AuthFailures).',
    );
    s.data = { invocations, cases: rows };
    return [s];
  } finally {
    await service.close();
  }
};
