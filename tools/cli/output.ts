import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

/** What a command writes to and reads from, so that tests run it without a process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
}

/** A mistake in the command line: exit code 2 and a pointer to --help. */
export class UsageError extends Error {}

/** A refusal the command explains in one line (an unknown key, a key in use): exit code 1. */
export class CommandError extends Error {}

/** A command line with its subcommands as positionals; a mistake in it is a UsageError. */
export const parseCommandLine = <O extends ParseArgsOptionsConfig>(args: string[], options: O) => {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
};

/** Says why command `name` failed and answers its exit code: 2 for the command line, 1 for the rest. */
export const exitOnError = (name: string, io: CliIo, error: unknown, describe: (error: unknown) => string): number => {
  if (error instanceof UsageError) {
    io.stderr(`${name}: ${error.message}\nRun with --help for usage.`);
    return 2;
  }
  io.stderr(`${name}: ${error instanceof CommandError ? error.message : describe(error)}`);
  return 1;
};

/** Rows as aligned columns, two spaces apart. */
export const table = (rows: string[][]): string => {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
};

/** One line for an AWS or network failure against `target`; `missing` names what a ResourceNotFound means. */
export const describeError = (error: unknown, target: string, missing: string): string => {
  const e = error as { name?: string; message?: string; code?: string };
  // An error from another realm (a test's VM context) reaches the SDK's retry as a plain wrapper: only its message names it.
  const code = e.code ?? /\b(ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN)\b/.exec(e.message ?? '')?.[1];
  if (code && ['ENOTFOUND', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN'].includes(code)) {
    return `could not reach ${target}: ${e.message}`;
  }
  if (e.name === 'ResourceNotFoundException') return `${missing} was not found (${target})`;
  if (e.name === 'CredentialsProviderError') return `no AWS credentials found: ${e.message}`;
  if (e.name === 'UnrecognizedClientException' || e.name === 'ExpiredTokenException') {
    return `AWS refused the credentials: ${e.message}`;
  }
  if (e.name === 'AccessDeniedException') return `access denied by AWS: ${e.message}`;
  return `${e.name ?? 'Error'}: ${e.message ?? String(error)}`;
};

const UNPRINTABLE = /[\p{Cc}\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Text from the stores (identifiers, message bodies) made safe for a terminal: control
 * characters (C0, DEL, C1) and the invisible ones that reorder or break lines become `\uXXXX`,
 * so a hostile user id can neither steer the terminal nor disguise what is printed.
 */
export const printable = (text: string): string =>
  text.replace(UNPRINTABLE, (c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`);

/** Whether `text` holds nothing that printable would escape. */
export const isPrintable = (text: string): boolean => text === printable(text);
