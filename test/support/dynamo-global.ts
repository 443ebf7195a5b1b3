import { tsImport } from 'tsx/esm/api';

/**
 * Jest global setup: one in-memory DynamoDB Local for the whole run, shared by the test files
 * through an environment variable that the workers inherit (test/support/dynamo.ts, and the
 * in-memory local runtimes: local/dynamo.ts), with the run's tables. It is not awaited: the JVM
 * starts while Jest compiles the first files, and startTestDynamo waits for it to answer and for
 * the tables. Without Java nothing is started and each test that needs a database fails with
 * the instruction to install it.
 *
 * Jest loads this file with Node's own loader, which cannot resolve the repository's
 * `#local/*.js` imports to TypeScript: tsx loads the rest.
 */
export default async function startSharedDynamo(): Promise<void> {
  const launcher = (await tsImport(
    '../../local/dynamodb-local.ts',
    import.meta.url,
  )) as typeof import('#local/dynamodb-local.js');
  const { SHARED_DYNAMODB_LOCAL_ENV } = (await tsImport(
    '../../local/dynamo.ts',
    import.meta.url,
  )) as typeof import('#local/dynamo.js');
  const { createRunTables } = (await tsImport('./run-tables.ts', import.meta.url)) as typeof import('./run-tables.js');
  // Already given (a DynamoDB Local with a database per access key): the run uses it, with its tables.
  const given = process.env[SHARED_DYNAMODB_LOCAL_ENV];
  if (given) {
    await createRunTables(given);
    return;
  }
  try {
    launcher.findJava();
  } catch {
    return;
  }
  const port = await launcher.freePort();
  process.env[SHARED_DYNAMODB_LOCAL_ENV] = `http://127.0.0.1:${port}`;
  // Each access key gets a database of its own, so that the in-memory local runtimes of the
  // test files can use the tables' fixed names side by side.
  // A generous start: this runs in Jest's own process, whose event loop the run's first minute
  // (compiling, the infra suites' bundling) can hold long enough that a 60 s deadline passed
  // while the JVM was up (seen once in CI), failing every suite that needs it.
  const starting = launcher.startDynamoDbLocal({ port, startTimeoutMs: 300_000 });
  // The run's tables, created once for every test file (test/support/run-tables.ts), which wait for them.
  starting
    .then((local) => createRunTables(local.endpoint))
    .catch((error: Error) => console.error(`The run's tables were not created: ${error.message}`));
  starting.catch((error: Error) => console.error(`The shared DynamoDB Local did not start: ${error.message}`));
  (globalThis as { sharedDynamo?: typeof starting }).sharedDynamo = starting;
}
