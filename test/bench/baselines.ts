import type { FunctionSpec } from '#service/functions.js';

/**
 * Cold-start baselines: the same first reads as config/get with nothing of the service's own,
 * plus the clients a function uses and a first call like its own with each: one SQS send for the
 * functions that send, one secret read for those that read the link keys, and for those that use
 * the files bucket a presigned URL (the HTTP functions: they only sign) or a file written, or
 * written and read (the consumers). Each function is scored against the baseline with the clients
 * and calls its spec names, chosen here and nowhere else (baselineOf). The scored ones are plain
 * SDK functions, with the SDK's default credential chain and settings lookup; the service's
 * functions take credentials from the environment only (service/bundle-aliases.ts) and find the
 * SDK's settings there (service/lambda-sdk-settings.ts), and the same baselines built that way
 * show the framework's own share (reported, not scored).
 */
type Part = 'send' | 'secret' | 'signedUrl' | 'fileWrite' | 'fileRead';
const PART_NAMES: Record<Part, string> = {
  send: 'SQS send',
  secret: 'secret',
  signedUrl: 'S3 presigned URL',
  fileWrite: 'S3 PutObject',
  fileRead: 'S3 GetObject',
};

/** Each scored baseline: its fixture (test/bench/fixtures/) and what it adds to the DynamoDB reads. */
const SCORED = {
  reads: { file: 'baseline-reads', parts: [] },
  readsAndSend: { file: 'baseline-reads-send', parts: ['send'] },
  readsAndSecret: { file: 'baseline-reads-secret', parts: ['secret'] },
  readsSendAndSecret: { file: 'baseline-reads-send-secret', parts: ['send', 'secret'] },
  readsAndSignedUrl: { file: 'baseline-reads-signed-url', parts: ['signedUrl'] },
  readsSendAndFileWrite: { file: 'baseline-reads-send-file-write', parts: ['send', 'fileWrite'] },
  readsSendAndFileReadWrite: { file: 'baseline-reads-send-file-read-write', parts: ['send', 'fileWrite', 'fileRead'] },
} as const satisfies Record<string, { file: string; parts: readonly Part[] }>;
type ScoredKind = keyof typeof SCORED;
type TwinKind = `${ScoredKind}EnvCredentials`;
export type BaselineKind = ScoredKind | TwinKind;

export interface Baseline {
  name: string;
  entry: string;
  /** Built as a plain SDK function: the SDK's default credential chain and settings lookup (the scored baselines only). */
  plainSdk: boolean;
}

const nameOf = (parts: readonly Part[]) => ['DynamoDB reads', ...parts.map((part) => PART_NAMES[part])].join(' + ');
const scoredKinds = Object.keys(SCORED) as ScoredKind[];

/** Each scored baseline, and its twin built as the functions are (`<kind>EnvCredentials`). */
export const BASELINES = Object.fromEntries(
  scoredKinds.flatMap((kind) => {
    const { file, parts } = SCORED[kind];
    const entry = `test/bench/fixtures/${file}.ts`;
    return [
      [kind, { name: `Baseline: ${nameOf(parts)}`, entry, plainSdk: true }],
      [
        `${kind}EnvCredentials`,
        { name: `Baseline: ${nameOf(parts)}, built as the functions are`, entry, plainSdk: false },
      ],
    ];
  }),
) as Record<BaselineKind, Baseline>;

/** A scored baseline's twin with the service's credential provider (a twin: itself). */
export const sameCredentials = (kind: BaselineKind): BaselineKind =>
  kind.endsWith('EnvCredentials') ? kind : (`${kind}EnvCredentials` as TwinKind);

/** What the bench knows of a function to choose its baseline: its spec's clients, and whether an HTTP route runs it. */
export type BaselineSpec = Pick<FunctionSpec, 'queues' | 'secrets' | 'files'> & { http: boolean };

/**
 * The scored baseline with the clients a function uses, and the calls it makes with them: an
 * HTTP function's files grant is for the URLs it signs (contract 15.3: presigned URLs are the
 * only way in or out), a consumer's for the files it reads (GetObject) and writes (PutObject).
 */
export const baselineOf = ({ queues, secrets, files, http }: BaselineSpec): BaselineKind => {
  const actions = new Set(Object.values(files ?? {}).flat());
  const parts = new Set<Part>([
    ...(queues && Object.keys(queues).length ? (['send'] as const) : []),
    ...(secrets?.length ? (['secret'] as const) : []),
    ...(actions.size && http ? (['signedUrl'] as const) : []),
    ...(actions.has('PutObject') && !http ? (['fileWrite'] as const) : []),
    ...(actions.has('GetObject') && !http ? (['fileRead'] as const) : []),
  ]);
  const kind = scoredKinds.find(
    (k) => SCORED[k].parts.length === parts.size && SCORED[k].parts.every((part) => parts.has(part)),
  );
  if (!kind) throw new Error(`bench: no baseline of ${nameOf([...parts])} (add a fixture to test/bench/baselines.ts)`);
  return kind;
};
