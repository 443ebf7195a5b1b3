import './quiet.js';
import { migrate } from './migration.js';

/** One migration size in its own process (forked by migrationBench); the result goes back over IPC. */
const size = Number(process.argv[2]);
if (!Number.isInteger(size) || size <= 0)
  throw new Error(`usage: migration-child.ts <entries>, got ${process.argv[2]}`);
const run = await migrate(size);
process.send?.(run, () => process.exit(0));
