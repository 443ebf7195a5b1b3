import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operationById } from '#tools/openapi/operations.js';
import { startLocalService } from '../support/local-service.js';
import { documents, ORG, users } from './ids.js';

/**
 * One config/set of argv[3] users x argv[4] documents through a fresh twin (`npm start`'s runtime)
 * in memory (argv[2] `memory`) or on a new data directory (`disk`), under set-config's own
 * deadline; sends its status and wall time in ms back over IPC. A process of its own: the
 * functions' clients keep the first twin's endpoints.
 */
const [mode = 'memory', usersArg = '100', documentsArg = '3'] = process.argv.slice(2);
const SET = operationById('setConfig').path;

const dataDir = await mkdtemp(join(tmpdir(), 'bench-twin-store-'));
const service = await startLocalService({
  inMemory: mode === 'memory',
  dataDir,
  shellEnvFile: false,
  changePublisher: false,
});
const set = async (userIds: string[], documentIds: string[]) =>
  (await service.call(SET, { organizationId: ORG, userIds, documentIds, config: { email: 'NONE' } })).status;
try {
  // The first request loads the handler and reads the credential: not the store's cost.
  const warm = await set(['warm-up'], ['doc-warm-up']);
  if (warm !== 200) throw new Error(`${mode}: the warm-up set answered ${warm}`);
  const started = performance.now();
  const status = await set(users(Number(usersArg)), documents(Number(documentsArg)));
  process.send?.({ status, ms: performance.now() - started });
} finally {
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
}
