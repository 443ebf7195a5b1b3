import type { Config } from 'jest';

type ProjectConfig = NonNullable<Config['projects']>[number] & object;

// Native ESM: @middy/core 7 ships ESM only, so the TypeScript is transformed to ESM
// and Jest runs with --experimental-vm-modules (see the "test" script).
const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true }],
  },
  moduleNameMapper: {
    '^#(shared|functions|service|infra|local|tools|client)/(.*)\\.js$': '<rootDir>/$1/$2.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
} satisfies ProjectConfig;

// One DynamoDB Local (a JVM) for the run, shared by the test files that need a database:
// test/support/dynamo.ts. Jest runs a global setup once however many projects name it.
const withDynamo = {
  globalSetup: '<rootDir>/test/support/dynamo-global.ts',
  globalTeardown: '<rootDir>/test/support/dynamo-global-teardown.ts',
} satisfies ProjectConfig;

/** A project of the folders given: `npm test -- --selectProjects <name>` runs it alone. */
const project = (displayName: string, folders: string[], extra: ProjectConfig = {}): ProjectConfig => ({
  ...common,
  displayName,
  roots: folders.map((folder) => `<rootDir>/test/${folder}`),
  testMatch: ['**/*.test.ts'],
  ...extra,
});

const config: Config = {
  projects: [
    // The service: its code in process (unit), against DynamoDB Local (integration), its routes
    // over HTTP through the twin (e2e) and the reliability suite (fuzzing, faults, races).
    project('service', ['unit', 'integration', 'e2e', 'reliability'], withDynamo),
    // The stack: the synthesized template, its policies and stages, the functions' bundles, and the
    // integration test's app (synthesized only: `npm run integ` deploys it). Each stage the files
    // read is synthesized once for the run, in a child process the global setup starts when a file
    // first asks for it (test/infra/synth.ts, `sharedSynth`).
    project('stack', ['infra', 'integ'], {
      globalSetup: '<rootDir>/test/infra/shared-synth-global.ts',
      globalTeardown: '<rootDir>/test/infra/shared-synth-global-teardown.ts',
    }),
    // The twin and the tools: npm start and npm run dev, the stand-ins of SQS, EventBridge and
    // Secrets Manager, DynamoDB Local's launcher, the command-line tools, the client package and
    // the documentation's examples.
    project('twin', ['twin'], withDynamo),
    // The pages in a real browser (Debian's Chromium).
    project('browser', ['browser'], withDynamo),
  ],
  testTimeout: 30_000,
  // Jest's default on a 2-core machine is one worker, which runs every file in turn; most files
  // wait on DynamoDB Local, a child process or the network much of their time, so three share
  // two cores without slowing each other down.
  maxWorkers: 3,
};

export default config;
