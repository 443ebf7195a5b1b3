import { type FromEnvInit, fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * The credential provider of every AWS client in a Lambda bundle, in place of the SDK's default
 * chain (`@aws-sdk/credential-provider-node`, which the bundler swaps for this module: see
 * service/bundle-aliases.ts). Lambda puts the function role's credentials in the environment of
 * every execution environment, and the default chain would take them from there too, as its first
 * link; its other links (SSO, ini files, credential processes, web identity, container and
 * instance metadata) and the STS and SSO clients they carry are bundle size and cold-start CPU
 * (docs/development.md, Credentials in a bundle) for sources a Lambda function never has. Without the variables the first call fails with the SDK's own
 * CredentialsProviderError (logged, INTERNAL), never with a silent fall-through to another source.
 */
export const defaultProvider = (init?: FromEnvInit) => fromEnv(init);
