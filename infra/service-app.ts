import { App, type AppProps, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SERVICE_NAME, ServiceStack } from '#infra/stack.js';
import { readServiceConfig } from '#infra/stage-settings.js';

export const stackName = (stage: string): string => `NotificationPreferences-${stage}`;

/**
 * The CDK app: configuration from context, one ServiceStack for the stage, and the cdk-nag
 * AwsSolutions pack, which fails synthesis on any unacknowledged finding. The tests build
 * the app through this same function.
 */
export const createServiceApp = (props?: AppProps): { app: App; stack: ServiceStack } => {
  const app = new App(props);
  const config = readServiceConfig(app.node);
  const stack = new ServiceStack(app, stackName(config.stage), {
    config,
    description: `Notification preferences service (${config.stage})`,
    // A protected stage is pinned to its account and region; the others deploy wherever the
    // credentials and AWS_REGION of the shell point.
    ...(config.account && config.region ? { env: { account: config.account, region: config.region } } : {}),
    terminationProtection: config.protectData,
  });
  Tags.of(stack).add('service', SERVICE_NAME);
  Tags.of(stack).add('stage', config.stage);
  // cdk-nag 3 is a policy validation plugin (it replaced the v2 Aspect): findings are
  // reported, and synthesis fails, unless acknowledged with Validations.of(construct).
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
};
