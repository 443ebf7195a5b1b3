/**
 * Packages a Lambda bundle takes from this repository instead of node_modules: module specifier
 * to file (relative to the repository root). Applied by the stack's bundler (ServiceFunction) and
 * by every test and bench that reads what a bundle holds, so that they measure what is deployed.
 * Only the bundles get them: the twin, the tests and the operator tools keep the SDK's own modules.
 */
export const LAMBDA_BUNDLE_ALIASES = {
  // The SDK's default credential chain: Lambda's credentials are in the environment (why, and
  // what it saves: shared/platform/lambda-credentials.ts).
  '@aws-sdk/credential-provider-node': 'shared/platform/lambda-credentials.ts',
} as const satisfies Record<string, string>;

/**
 * The aliases as esbuild takes them: each target a path from the repository root (`./…`), which
 * esbuild resolves in its working directory, so a build must run there (the stack's does:
 * NodejsFunction's projectRoot; `absWorkingDir` for the API).
 */
export const esbuildAliases = (): Record<string, string> =>
  Object.fromEntries(Object.entries(LAMBDA_BUNDLE_ALIASES).map(([specifier, file]) => [specifier, `./${file}`]));
