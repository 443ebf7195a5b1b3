import { type FromEnvInit, fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * The credential provider of every AWS client in a Lambda bundle, in place of the SDK's default
 * chain (`@aws-sdk/credential-provider-node`, which the bundler swaps for this module: see
 * service/bundle-aliases.ts). Lambda puts the role's credentials in the environment, the default
 * chain's first link; its other links, for sources a function never has, are bundle size and
 * cold-start CPU (docs/development.md, Credentials in a bundle). Without the variables the first
 * call fails with the SDK's CredentialsProviderError, never falling through to another source.
 */
export const defaultProvider = (init?: FromEnvInit) => fromEnv(init);
