import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder: handler entries and the stack's assets are relative to it. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
