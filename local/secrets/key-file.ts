import { randomUUID } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { newKeyringDocument, serializeKeyringDocument } from '#shared/links/keyring.js';
import { PRIVATE_FILE_MODE, privateDirectory } from '../private-files.js';

/**
 * The local twin's link keys (docs/operations.md, Link keys): the same JSON as the deployed
 * secret, in `link-keys.json` of the data directory, 0600 like every file there. The first start
 * writes a keyring of one fresh key; the Secrets Manager stand-in (local-secrets-manager.ts)
 * serves the file and `npm run link-keys` changes it (through the stand-in while a server runs).
 * Each write goes to a temporary file that is synced and then renamed over the file, so a crash
 * leaves the old keys or the new ones, never half of either.
 */

export const KEY_FILE_NAME = 'link-keys.json';
export const keyFileOf = (dataDir: string): string => join(dataDir, KEY_FILE_NAME);

export const readKeyFile = async (file: string): Promise<string | undefined> => {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

export const writeKeyFile = async (file: string, content: string): Promise<void> => {
  await privateDirectory(dirname(file));
  const temporary = `${file}.${randomUUID()}.tmp`;
  const handle = await open(temporary, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(content.endsWith('\n') ? content : `${content}\n`, 'utf8');
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
};

/** The key file's content, made with one fresh key when there is none yet. */
export const ensureKeyFile = async (file: string): Promise<{ content: string; created: boolean }> => {
  const existing = await readKeyFile(file);
  if (existing !== undefined) return { content: existing, created: false };
  const content = serializeKeyringDocument(newKeyringDocument());
  await writeKeyFile(file, content);
  return { content, created: true };
};
