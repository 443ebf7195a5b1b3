import type { Config } from 'jest';

// Native ESM: @middy/core 7 ships ESM only, so the TypeScript is transformed to ESM
// and Jest runs with --experimental-vm-modules (see the "test" script).
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true }],
  },
  moduleNameMapper: {
    '^#(shared|functions|service|infra|local|tools|client)/(.*)\\.js$': '<rootDir>/$1/$2.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testTimeout: 30_000,
  // One DynamoDB Local (a JVM) for the run, shared by the test files: test/support/dynamo.ts.
  globalSetup: '<rootDir>/test/support/dynamo-global.ts',
  globalTeardown: '<rootDir>/test/support/dynamo-global-teardown.ts',
};

export default config;
