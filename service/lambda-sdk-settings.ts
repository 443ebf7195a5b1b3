/**
 * The AWS SDK settings every Lambda function of the service gets in its environment (set by
 * ServiceFunction). Each client looks up each of these settings on its first call: first in the
 * environment, then in the shared config and credentials files (~/.aws/config, ~/.aws/credentials),
 * then it takes the default. A Lambda function has no such files, and every miss on the way throws
 * and catches an error at cold start (`npm run bench -- --only=bundles`). Set in the environment,
 * each is found at the first step.
 *
 * The values are the SDK's own defaults (test/infra/lambda-sdk-settings.test.ts resolves each
 * without them and compares), so behaviour does not change, except the app id, which adds
 * `app/notification-preferences` to the User-Agent of every AWS call (CloudTrail shows it).
 * An operator who needs FIPS or dual-stack endpoints changes the value here, in one place.
 */
export const LAMBDA_SDK_SETTINGS = {
  AWS_DEFAULTS_MODE: 'legacy',
  AWS_RETRY_MODE: 'standard',
  AWS_USE_FIPS_ENDPOINT: 'false',
  AWS_USE_DUALSTACK_ENDPOINT: 'false',
  AWS_ACCOUNT_ID_ENDPOINT_MODE: 'preferred',
  // Empty: no preference, the SDK's default.
  AWS_AUTH_SCHEME_PREFERENCE: '',
  // The endpoint variables (AWS_ENDPOINT_URL_*) still apply; none is set in Lambda.
  AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'false',
  AWS_DISABLE_CLOCK_SKEW_CORRECTION: 'false',
  AWS_SDK_UA_APP_ID: 'notification-preferences',
} as const satisfies Record<string, string>;
