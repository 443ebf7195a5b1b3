/**
 * Acknowledgement ids for findings of the cfn-guard policy plugin, which the tests run on
 * every synthesis with the AWS Control Tower proactive rules and the rules in infra/policy/
 * (test/infra/synth.ts). Acknowledge them with Validations.of(construct), like cdk-nag's.
 */
export const guardRule = (name: string): string => `cdk-validator-cfnguard::${name}`;

/** Control Tower rule names (the rule, not the control id: that is what the plugin reports). */
export const CONTROL_TOWER = {
  /** CT.APIGATEWAY.PR.5: routes must use IAM, JWT or a custom authorizer. */
  routeAuthorization: guardRule('api_gw_v2_authorization_type_configured_check'),
  /** CT.CLOUDWATCH.PR.1: an alarm must have an action. */
  alarmAction: guardRule('cloudwatch_alarm_action_check'),
  /** CT.CLOUDWATCH.PR.2: log groups must keep events at least 365 days. */
  logRetentionYear: guardRule('cloudwatch_log_group_retention_period_check'),
  /** CT.CLOUDWATCH.PR.3: log groups must be encrypted with a customer managed KMS key. */
  logKmsKey: guardRule('cloudwatch_log_group_encrypted_check'),
  /** CT.LAMBDA.PR.2: a Lambda permission must name its source (as a literal string). */
  lambdaPermissionSource: guardRule('lambda_function_public_access_prohibited_check'),
  /** CT.LAMBDA.PR.3: functions must run in a VPC. */
  lambdaVpc: guardRule('lambda_inside_vpc_check'),
  /** CT.SQS.PR.1: a queue must have a dead-letter queue. */
  queueDeadLetter: guardRule('sqs_dlq_check'),
  /** A bucket must have server access logging. */
  bucketLogging: guardRule('s3_bucket_logging_enabled_check'),
  /** A bucket must be encrypted with a KMS key. */
  bucketKmsKey: guardRule('s3_bucket_default_encryption_kms_check'),
  /** A bucket must keep versions. */
  bucketVersioning: guardRule('s3_bucket_versioning_enabled_check'),
  /** A bucket must have object lock. */
  bucketObjectLock: guardRule('s3_bucket_object_lock_enabled_check'),
  /** A bucket must send event notifications. */
  bucketNotifications: guardRule('s3_event_notifications_enabled_check'),
} as const;
