import './quiet.js';
import { migrate } from './migration.js';

/** One migration size in its own process (forked by migrationBench); the result goes back over IPC. */
const [sizeArg, endpoint] = process.argv.slice(2);
const size = Number(sizeArg);
if (!Number.isInteger(size) || size <= 0 || !endpoint)
  throw new Error(`usage: migration-child.ts <entries> <DynamoDB endpoint>, got ${process.argv.slice(2).join(' ')}`);
const run = await migrate(size, endpoint);
process.send?.(run, () => process.exit(0));
