import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IAlarmAction,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CONTROL_TOWER } from '../guard-rules.js';

const PERIOD = Duration.minutes(5);

/** Share of API requests answered with a 5xx, in percent, above which the API alarm fires. */
export const API_5XX_RATE_THRESHOLD_PERCENT = 5;

/** A function whose p99 duration passes this share of its timeout is about to time out. */
export const DURATION_THRESHOLD_SHARE_OF_TIMEOUT = 0.8;

/** Share of the account's Lambda concurrency quota above which the concurrency alarm fires. */
export const ACCOUNT_CONCURRENCY_THRESHOLD_SHARE = 0.8;

/** What a dead-letter queue's alarms say. */
export interface DeadLetters {
  notEmpty: string;
  growing: string;
}

export const MIGRATION_DEAD_LETTERS: DeadLetters = {
  notEmpty:
    'Migration messages are in the dead-letter queue: those migrations are marked failed. ' +
    'Inspect the messages and the consumer logs, then redrive or delete them.',
  growing:
    'More migration messages reached the dead-letter queue in the last 5 minutes: new ' +
    'migrations failed for good. See the NotEmpty alarm for what to do.',
};

export interface ServiceAlarmsProps {
  /** Subscribes this address to the alarm topic; without it the alarms only show in CloudWatch. */
  alarmEmail?: string;
  /** For the topic's KMS key. */
  removalPolicy: RemovalPolicy;
}

/**
 * The service's CloudWatch alarms, and (when an email address is given) an encrypted SNS
 * topic that every alarm notifies on ALARM and on OK.
 */
export class ServiceAlarms extends Construct {
  readonly topic?: Topic;
  private readonly actions: IAlarmAction[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    if (!props.alarmEmail) return;

    // A customer managed key: CloudWatch must encrypt what it publishes, and the AWS managed
    // aws/sns key's policy cannot grant that to the CloudWatch service.
    const key = new Key(this, 'TopicKey', {
      description: 'Encrypts the alarm notification topic',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    key.grant(cloudWatch, 'kms:Decrypt', 'kms:GenerateDataKey*');
    // No grants on this key but those AWS services create for themselves: nothing of the
    // service needs one (Control Tower CT.KMS.PR.3).
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'DenyGrantsExceptForAwsServices',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: {
          BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' },
        },
      }),
    );

    const topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    const { account, region, partition } = Stack.of(this);
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowThisAccountsAlarms',
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
        },
      }),
    );
    topic.addSubscription(new EmailSubscription(props.alarmEmail));
    this.topic = topic;
    this.actions.push(new SnsAction(topic));
  }

  /**
   * Messages in the dead-letter queue are migrations that failed for good. NotEmpty stays in
   * ALARM while any message remains, so a second failure would send nothing: Growing goes to
   * ALARM on every period in which the count rises. (NumberOfMessagesSent would not do: SQS
   * does not count messages that a redrive policy moves to a dead-letter queue.)
   */
  addDeadLetterQueue(id: string, queue: IQueue, about: DeadLetters = MIGRATION_DEAD_LETTERS): void {
    const visible = queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' });
    this.alarm(`${id}NotEmpty`, visible, { threshold: 0, description: about.notEmpty });
    this.alarm(
      `${id}Growing`,
      new MathExpression({
        expression: 'DIFF(visible)',
        usingMetrics: { visible },
        period: PERIOD,
        label: 'New dead-letter messages',
      }),
      { threshold: 0, description: about.growing },
    );
  }

  /**
   * The age of the newest record a stream consumer has read is above `thresholdSeconds`: it
   * falls behind the table's changes (failing and retrying a batch, or not keeping up), and the
   * stream keeps records 24 hours only.
   */
  addIteratorAge(id: string, fn: IFunction, thresholdSeconds: number): void {
    this.alarm(id, fn.metric('IteratorAge', { period: PERIOD, statistic: 'Maximum' }), {
      threshold: thresholdSeconds * 1000,
      description:
        `The change publisher reads its streams more than ${thresholdSeconds} s behind: changes reach the history ` +
        'and the event bus late. See its logs and the Errors alarm; the stream keeps records 24 hours.',
    });
  }

  /**
   * The oldest message of a queue waits longer than `thresholdSeconds`: messages are retried
   * (a failure returns a message only after the visibility timeout) or pile up. A migration
   * that fails is reported through a partial batch response, not as a Lambda error, so this
   * is the first sign of it.
   */
  addQueueAge(id: string, queue: IQueue, thresholdSeconds: number, jobs = 'migration'): void {
    this.alarm(id, queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }), {
      threshold: thresholdSeconds,
      description:
        `A ${jobs} message has waited more than ${thresholdSeconds} s: ${jobs}s are failing ` +
        'and being retried, or the consumer does not keep up.',
    });
  }

  /** Unhandled errors (a crash, a timeout), throttled invocations, and durations close to the timeout of one function. */
  addFunction(id: string, fn: IFunction, timeoutSeconds: number): void {
    this.alarm(`${id}Errors`, fn.metricErrors({ period: PERIOD, statistic: 'Sum' }), {
      threshold: 0,
      description: `${id} failed invocations (unhandled error or timeout). See the function's logs.`,
    });
    this.alarm(`${id}Throttles`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }), {
      threshold: 0,
      description: `${id} invocations were throttled: the account or function concurrency limit was reached.`,
    });
    const thresholdMs = Math.round(DURATION_THRESHOLD_SHARE_OF_TIMEOUT * timeoutSeconds * 1000);
    this.alarm(`${id}Duration`, fn.metricDuration({ period: PERIOD, statistic: 'p99' }), {
      threshold: thresholdMs,
      description:
        `${id} p99 duration above ${thresholdMs} ms, ${DURATION_THRESHOLD_SHARE_OF_TIMEOUT * 100} % of its ` +
        `${timeoutSeconds} s timeout: invocations are about to time out.`,
    });
  }

  /**
   * Concurrency the whole account has claimed in the region (every function shares the quota),
   * above a share of `limit`: past the quota every function is throttled.
   */
  addAccountConcurrency(id: string, limit: number): void {
    const threshold = Math.floor(ACCOUNT_CONCURRENCY_THRESHOLD_SHARE * limit);
    this.alarm(
      id,
      new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'ClaimedAccountConcurrency',
        period: PERIOD,
        statistic: 'Maximum',
      }),
      {
        threshold,
        description:
          `Lambda concurrency claimed in this account and region is above ${threshold}, ` +
          `${ACCOUNT_CONCURRENCY_THRESHOLD_SHARE * 100} % of the quota of ${limit} (accountConcurrencyLimit).`,
      },
    );
  }

  /** The share of requests that the API answered with a 5xx (INTERNAL, UNAVAILABLE, or a gateway failure). */
  addApi(id: string, api: IHttpApi): Alarm {
    const rate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: api.metricServerError({ period: PERIOD, statistic: 'Sum' }),
        requests: api.metricCount({ period: PERIOD, statistic: 'Sum' }),
      },
      period: PERIOD,
      label: '5xx responses (%)',
    });
    return this.alarm(id, rate, {
      threshold: API_5XX_RATE_THRESHOLD_PERCENT,
      description: `More than ${API_5XX_RATE_THRESHOLD_PERCENT}% of API requests answered 5xx in 5 minutes.`,
    });
  }

  private alarm(
    id: string,
    metric: Metric | MathExpression,
    { threshold, description }: { threshold: number; description: string },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      // Stable, readable names for runbooks; the stack name keeps them unique per region.
      alarmName: `${Stack.of(this).stackName}-${id}`,
      metric,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      // No data means no traffic, not a failure.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    for (const action of this.actions) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    if (this.actions.length === 0) {
      Validations.of(alarm).acknowledge({
        id: CONTROL_TOWER.alarmAction,
        reason:
          'An unprotected stage without alarmEmail: its alarms show in CloudWatch and notify nobody. ' +
          'A protected stage must have alarmEmail (infra/stage-settings.ts), so its alarms all notify.',
      });
    }
    return alarm;
  }
}
