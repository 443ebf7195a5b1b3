import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from './private-files.js';

/**
 * The AWS credential of the twin's stand-ins (SQS, EventBridge, Secrets Manager) and of its
 * DynamoDB Local: generated for a data directory's first start and kept in it (0600), so that
 * DynamoDB Local, which keeps one database per access key, finds the same tables after a
 * restart; generated afresh for each in-memory start. The functions get it as
 * AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, the tools read it from the data directory; any
 * other process on the machine has neither, and is refused (local/aws-json/authorize.ts).
 */
export interface AwsCredential {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * The variables that hand the credential of an --in-memory twin, which has no data directory, to
 * a tool (its `export` line sets them; they are not AWS_*, which would replace a shell's own).
 */
export const LOCAL_AWS_ENV = { accessKeyId: 'LOCAL_AWS_ACCESS_KEY_ID', secretAccessKey: 'LOCAL_AWS_SECRET_ACCESS_KEY' };

/** Upper-case letters and digits: DynamoDB Local names its database file after the key. */
const ACCESS_KEY_ID = /^LOCAL[0-9A-F]{20}$/;

export const newAwsCredential = (): AwsCredential => ({
  accessKeyId: `LOCAL${randomBytes(10).toString('hex').toUpperCase()}`,
  secretAccessKey: randomBytes(30).toString('base64url'),
});

/** The credential kept in `file`, if it holds a well-formed one. */
export const readAwsCredential = async (file: string): Promise<AwsCredential | undefined> => {
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as Partial<AwsCredential>;
    if (typeof saved.accessKeyId !== 'string' || !ACCESS_KEY_ID.test(saved.accessKeyId)) return undefined;
    if (typeof saved.secretAccessKey !== 'string' || saved.secretAccessKey.length < 20) return undefined;
    return { accessKeyId: saved.accessKeyId, secretAccessKey: saved.secretAccessKey };
  } catch {
    return undefined;
  }
};

/** Writes `credential` to `file` (0600) through a temporary name: a reader sees the old or the new one. */
export const writeAwsCredential = async (file: string, credential: AwsCredential): Promise<void> => {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(credential, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  await chmod(temporary, PRIVATE_FILE_MODE);
  await rename(temporary, file);
};
