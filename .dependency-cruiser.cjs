/**
 * The layers of the code (docs/development.md, Architecture), kept by `npm run lint`: imports go
 * down the layers only, and nothing imports in a circle, between files or between folders.
 *
 * Runtime code, bottom to top: shared/api (the wire contract) < shared/platform (what every
 * function runs on) < the domains, in one order: jobs, auth, policy, schedules, consent, files,
 * branding < preferences < history, links, imports, exports < migration, erasure < people, events
 * < webhooks < shared/edge (the function skeletons) < functions. Outside the runtime: service (the
 * deployment description) reads the runtime; infra, local and tools read service; tools may use
 * local; tests read everything.
 */

/** Rank of each folder of shared/: a folder imports only folders of a lower rank (or itself). */
const RANKS = {
  api: 0,
  platform: 1,
  jobs: 2,
  auth: 2,
  policy: 2,
  schedules: 2,
  // Consent evidence and texts: what a change's request says of how it was made.
  consent: 2,
  // The files bucket: its keys and folders, and the store of the import and export files.
  files: 2,
  // An organization's branding, which the pages of its links show.
  branding: 2,
  preferences: 3,
  history: 4,
  // The links in emails: they act through preferences and policy; a migration leaves their
  // forwarding record and an erasure revokes them.
  links: 4,
  // Jobs over the files bucket: an import applies a file's lines through preferences, an export
  // writes an organization's preferences to a file.
  imports: 4,
  exports: 4,
  migration: 5,
  erasure: 5,
  // A person's data, gathered from every domain that holds some (the export).
  people: 6,
  events: 6,
  // Deliveries of the service's events (their detail types); the endpoints' secrets are sealed
  // with the links' keyring.
  webhooks: 7,
  edge: 8,
};

const folders = Object.keys(RANKS);

/** One rule per folder: what it may not import (folders of its rank or higher, itself aside). */
const layerRules = folders.map((from) => ({
  name: `shared-${from}-imports-down`,
  comment: `shared/${from} imports only lower layers of shared/ (docs/development.md, Architecture)`,
  severity: 'error',
  from: { path: `^shared/${from}/` },
  to: {
    path: `^shared/(${folders.filter((to) => to !== from && RANKS[to] >= RANKS[from]).join('|')})/`,
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules importing each other, directly or through others',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules.filter((rule) => rule.to.path !== '^shared/()/'),
    {
      name: 'shared-is-runtime',
      comment: 'shared/ is what the Lambda functions run: it imports no handler, deployment, infra, twin, tool or test',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(functions|service|infra|local|tools|client|test)/' },
    },
    {
      name: 'functions-import-shared-only',
      comment: 'A handler wires shared/ code; it knows no deployment description, infra, twin or tool',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(service|infra|local|tools|client|test)/' },
    },
    {
      name: 'service-describes-runtime',
      comment: 'service/ (the deployment, free of CDK) reads the runtime and nothing above it',
      severity: 'error',
      from: { path: '^service/' },
      to: { path: '^(functions|infra|local|tools|client|test)/' },
    },
    {
      name: 'infra-is-cdk-only',
      comment: 'The stack reads the deployment description, never the twin, the tools or the tests',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^(functions|local|tools|client|test)/' },
    },
    {
      name: 'local-is-no-tool',
      comment: 'The local twin runs the functions; it imports no tool, infra or test (tools may use the twin)',
      severity: 'error',
      from: { path: '^local/' },
      to: { path: '^(tools|infra|client|test)/' },
    },
    {
      name: 'tools-no-tests',
      comment: 'Tools never import the tests',
      severity: 'error',
      from: { path: '^tools/' },
      to: { path: '^test/' },
    },
    {
      name: 'client-stands-alone',
      comment: 'The client is a package of its own: it imports nothing of the repository',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: '^(shared|functions|service|infra|local|tools|test)/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing',
      severity: 'error',
      from: {},
      // aws-lambda is the type package @types/aws-lambda: nothing to resolve at run time.
      to: { couldNotResolve: true, pathNot: '^aws-lambda$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|\\.data|client/dist|test/bench/results|test/twin/client-consumer)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
