/** What a command writes to and reads from, so that tests run it without a process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
}

/** A mistake in the command line: exit code 2 and a pointer to --help. */
export class UsageError extends Error {}

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
  if (e.code && ['ENOTFOUND', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN'].includes(e.code)) {
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
