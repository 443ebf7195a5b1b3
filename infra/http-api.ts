import { type RemovalPolicy, type Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type CfnStage, HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { ServiceConfig } from '#infra/stage-settings.js';
import { PUBLIC_ROUTES, type PublicRouteId, ROUTES, type RouteId } from '#service/routes.js';
import { publicRoutePaths } from '#shared/platform/route.js';
import { acknowledgeLogGroupRules, type ServiceFunction } from './constructs/service-function.js';
import { CONTROL_TOWER } from './guard-rules.js';

/** A construct id from an operation or page id: `setConfig` -> `SetConfig`. */
export const pascal = (id: string): string => id.charAt(0).toUpperCase() + id.slice(1);

export interface HttpApiProps {
  config: ServiceConfig;
  removalPolicy: RemovalPolicy;
  /** Answers NOT_FOUND for every path no route has. */
  notFound: ServiceFunction;
  routeFunctions: Record<RouteId, ServiceFunction>;
  publicFunctions: Record<PublicRouteId, ServiceFunction>;
}

/**
 * The HTTP API: a route per operation (service/routes.ts) and per page of the links in emails,
 * each to its own function, a NOT_FOUND catch-all, and the stage with its throttles and access
 * logs. Its constructs are the stack's children, so their logical ids do not depend on this file.
 */
export const createHttpApi = (
  stack: Stack,
  { config, removalPolicy, notFound, routeFunctions, publicFunctions }: HttpApiProps,
): { api: HttpApi; stage: HttpStage } => {
  const api = new HttpApi(stack, 'HttpApi', {
    description: 'Notification preferences and document migration API',
    createDefaultStage: false,
    // Unknown paths reach a function that answers NOT_FOUND in the JSON envelope.
    defaultIntegration: new HttpLambdaIntegration('NotFoundIntegration', notFound.function),
  });
  for (const route of ROUTES) {
    // ANY, not POST: the handler itself answers other methods with INVALID_ARGUMENT in the
    // envelope, where API Gateway would send its own non-JSON 404.
    const [httpRoute] = api.addRoutes({
      path: route.path,
      methods: [HttpMethod.ANY],
      integration: new HttpLambdaIntegration(
        `${pascal(route.operationId)}Integration`,
        routeFunctions[route.operationId].function,
      ),
    });
    if (httpRoute) acknowledgeNoAuthorizer(httpRoute, LAMBDA_LEVEL_AUTH);
  }
  // The pages of the links in emails: every path under a prefix reaches its function, which
  // answers `<prefix><token>` and its 404 page for anything else (shared/edge/public-route.ts).
  // The prefix itself (`/u`, which API Gateway also matches for `/u/`; a route may not end in
  // a slash) goes there too, so that no path of a page is answered outside the page's headers.
  const publicRouteKeys: string[] = [];
  const publicRoutes: Construct[] = [];
  for (const route of PUBLIC_ROUTES) {
    const integration = new HttpLambdaIntegration(`${pascal(route.id)}Integration`, publicFunctions[route.id].function);
    for (const path of publicRoutePaths(route.prefix)) {
      const [httpRoute] = api.addRoutes({ path, methods: [HttpMethod.ANY], integration });
      publicRouteKeys.push(`ANY ${path}`);
      if (httpRoute) {
        acknowledgeNoAuthorizer(httpRoute, PUBLIC_PAGE);
        publicRoutes.push(httpRoute);
      }
    }
  }
  const defaultRoute = api.node.tryFindChild('DefaultRoute');
  if (defaultRoute) acknowledgeNoAuthorizer(defaultRoute, LAMBDA_LEVEL_AUTH);

  const accessLogs = new LogGroup(stack, 'ApiAccessLogs', {
    // API Gateway delivers access logs as vended logs: a group under this prefix needs no entry
    // in the account's CloudWatch Logs resource policy, which is limited to 5,120 characters
    // and, in a busy account, full (the stage would then fail to create).
    logGroupName: `/aws/vendedlogs/${stack.stackName}/api-access`,
    retention: config.logRetentionDays,
    removalPolicy,
  });
  acknowledgeLogGroupRules(accessLogs);
  const stage = new HttpStage(stack, 'ApiStage', {
    httpApi: api,
    stageName: '$default',
    autoDeploy: true,
    throttle: { rateLimit: config.throttleRate, burstLimit: config.throttleBurst },
    accessLogSettings: {
      destination: new LogGroupLogDestination(accessLogs),
      format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
    },
  });
  // The public pages get their own throttle, route by route, in place of the stage's default
  // (API Gateway keeps a bucket per route): a mail scanner opening every link of a bulk mail
  // is throttled there, never at the expense of the API's callers.
  // (A JSON map that CDK passes as it is: CloudFormation's own property names.)
  (stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
    publicRouteKeys.map((routeKey) => [
      routeKey,
      { ThrottlingRateLimit: config.linkThrottleRate, ThrottlingBurstLimit: config.linkThrottleBurst },
    ]),
  );
  // Route settings may only name routes that exist.
  for (const route of publicRoutes) stage.node.addDependency(route);
  return { api, stage };
};

/**
 * One JSON object per request. Deliberately no headers (the auth token travels in one) and no
 * path: the links in emails carry their token in it (`/u/<token>`). The route key names the
 * route (`ANY /u/{proxy+}`, `$default` for an unknown path) without the token.
 * Variables: https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-logging-variables.html
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  latency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
} as const;

const LAMBDA_LEVEL_AUTH =
  'Authentication is done in the function (shared Middy middleware, before any body ' +
  'validation): x-service-api-key and x-service-auth-token are checked against the ' +
  'credentials table, which also decides the organizations the caller may use. The ' +
  '$default route answers NOT_FOUND and touches no data. A gateway authorizer would ' +
  "answer 401/403 outside the API's JSON envelope.";

const PUBLIC_PAGE =
  'A page a person opens from a link in an email, without an account (docs/api.md, Links in emails): the link ' +
  'itself is the credential, an encrypted and authenticated token in the path that the function checks before ' +
  'anything else; every other request answers the same 404 page. The route has its own throttle on the stage.';

/** A route without an authorizer (`reason`: why), and the permission that lets it invoke its function (a child of the route). */
const acknowledgeNoAuthorizer = (route: Construct, reason: string) =>
  Validations.of(route).acknowledge(
    { id: 'AwsSolutions-APIG4', reason },
    { id: CONTROL_TOWER.routeAuthorization, reason },
    {
      id: CONTROL_TOWER.lambdaPermissionSource,
      reason:
        "The permission's SourceArn is this API's execute-api ARN, which CloudFormation builds with " +
        'Fn::Join from the API id; the rule only accepts a literal string there.',
    },
  );
