import { chmod, rename, writeFile } from 'node:fs/promises';
import { type AwsCredential, LOCAL_AWS_ENV } from './aws-credential.js';
import { PRIVATE_FILE_MODE } from './private-files.js';

/**
 * The one line a developer pastes into another shell to reach the twin (`export BASE_URL=…
 * API_KEY=… AUTH_TOKEN=… DATA_DIR=…`), and the file in the data directory that holds the same
 * line for `source`. Every example of the docs runs with exactly these variables.
 */

export interface ShellEnv {
  baseUrl: string;
  apiKey: string;
  token: string;
  /** Undefined in memory: there is no data directory to name. */
  dataDir: string | undefined;
  /** In memory only: the AWS credential, which the tools otherwise read from the data directory. */
  awsCredential?: AwsCredential | undefined;
}

/** Characters that mean nothing to bash or zsh in an assignment's value (no `~`, `=`, `^`, `#`, globs). */
const PLAIN = /^[A-Za-z0-9_./:@%+,-]+$/;
/** What breaks a pasted line or could steer a terminal: control characters, C1, line separators. */
const UNPRINTABLE = /[\p{Cc}\u2028\u2029]/u;

/**
 * `value` as one word that bash and zsh both read back unchanged. Plain values stay as they are;
 * others go in single quotes (each `'` as `'\''`); one with control characters (a data directory
 * named with a newline) in `$'…'`, every byte but letters and digits as `\xHH`, so that the line
 * stays one line and no `!` is left for history expansion.
 */
export const shellQuote = (value: string): string => {
  if (PLAIN.test(value)) return value;
  if (!UNPRINTABLE.test(value)) return `'${value.replaceAll("'", `'\\''`)}'`;
  const bytes = [...Buffer.from(value, 'utf8')];
  return `$'${bytes.map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('')}'`;
};

/** `export BASE_URL=… API_KEY=… AUTH_TOKEN=… DATA_DIR=…` (no DATA_DIR in memory). */
export const exportLine = ({ baseUrl, apiKey, token, dataDir, awsCredential }: ShellEnv): string =>
  [
    'export',
    `BASE_URL=${shellQuote(baseUrl)}`,
    `API_KEY=${shellQuote(apiKey)}`,
    `AUTH_TOKEN=${shellQuote(token)}`,
    ...(dataDir === undefined ? [] : [`DATA_DIR=${shellQuote(dataDir)}`]),
    ...(awsCredential
      ? [
          `${LOCAL_AWS_ENV.accessKeyId}=${shellQuote(awsCredential.accessKeyId)}`,
          `${LOCAL_AWS_ENV.secretAccessKey}=${shellQuote(awsCredential.secretAccessKey)}`,
        ]
      : []),
  ].join(' ');

/** The file's text: a comment (no path in it: a hostile name must not end the comment) and the line. */
export const shellEnvFile = (env: ShellEnv): string =>
  "# The local twin's address and credential, rewritten by each `npm start`; load with `source`.\n" +
  `${exportLine(env)}\n`;

/**
 * Writes the file (0600: it holds the token) through a temporary name, so that a `source` at
 * the same moment reads the old line or the new one, never half of one.
 */
export const writeShellEnv = async (file: string, env: ShellEnv): Promise<void> => {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, shellEnvFile(env), { mode: PRIVATE_FILE_MODE });
  await chmod(temporary, PRIVATE_FILE_MODE);
  await rename(temporary, file);
};
