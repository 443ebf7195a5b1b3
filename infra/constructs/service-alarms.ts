import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IAlarmAction,
  MathExpression,
  type Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

const PERIOD = Duration.minutes(5);

/** Share of API requests answered with a 5xx, in percent, above which the API alarm fires. */
export const API_5XX_RATE_THRESHOLD_PERCENT = 5;

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

  /** Messages in the dead-letter queue are migrations that failed for good. */
  addDeadLetterQueue(id: string, queue: IQueue): Alarm {
    return this.alarm(id, queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }), {
      threshold: 0,
      description:
        'Migration messages reached the dead-letter queue: those migrations are marked failed. ' +
        'Inspect the messages and the consumer logs, then redrive or delete them.',
    });
  }

  /** Unhandled errors (a crash, a timeout) and throttled invocations of one function. */
  addFunction(id: string, fn: IFunction): void {
    this.alarm(`${id}Errors`, fn.metricErrors({ period: PERIOD, statistic: 'Sum' }), {
      threshold: 0,
      description: `${id} failed invocations (unhandled error or timeout). See the function's logs.`,
    });
    this.alarm(`${id}Throttles`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }), {
      threshold: 0,
      description: `${id} invocations were throttled: the account or function concurrency limit was reached.`,
    });
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
    return alarm;
  }
}
