// Control Tower proactive controls: the cfn-guard rules @cdklabs/cdk-validator-cfnguard bundles. Each
// finding the design accepts is acknowledged on the resource it concerns, with its control id and reason,
// so an app that registers the CfnGuardValidator plugin sees only new findings. Like lib/nag.ts, each
// acknowledgement is read off the synthesized resource (a log group kept a year, a KMS key, a VPC drops its
// own). Unlike cdk-nag, the plugin does not run on every synth, so turning a protection off
// (serverAccessLogs: false) is left to fail the rule, as Control Tower itself would.
import { Stack, Token, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import { NO_AUTHORIZER } from './nag';
import type { WebhookInbox } from './webhook-inbox';

/** The plugin's name, which prefixes its rule ids in acknowledgements. */
export const CFN_GUARD_PLUGIN = 'cdk-validator-cfnguard';

/** The Control Tower controls this stack does not meet by design, with the cfn-guard rule of each. */
export const CONTROL_TOWER_TRADE_OFFS = {
  'CT.LAMBDA.PR.2': 'lambda_function_public_access_prohibited_check',
  'CT.LAMBDA.PR.3': 'lambda_inside_vpc_check',
  'CT.LAMBDA.PR.5': 'lambda_function_url_auth_check',
  'CT.CLOUDWATCH.PR.2': 'cloudwatch_log_group_retention_period_check',
  'CT.CLOUDWATCH.PR.3': 'cloudwatch_log_group_encrypted_check',
  'CT.S3.PR.2': 's3_bucket_logging_enabled_check',
  'CT.S3.PR.4': 's3_event_notifications_enabled_check',
  'CT.S3.PR.9': 's3_bucket_object_lock_enabled_check',
  'CT.S3.PR.10': 's3_bucket_default_encryption_kms_check',
  'CT.S3.PR.11': 's3_bucket_versioning_enabled_check',
  'CT.APIGATEWAY.PR.2': 'api_gw_xray_enabled_check',
  'CT.APIGATEWAY.PR.5': 'api_gw_v2_authorization_type_configured_check',
} as const;

export type ControlId = keyof typeof CONTROL_TOWER_TRADE_OFFS;

/** A year: CT.CLOUDWATCH.PR.2's minimum retention. */
const RULE_MIN_RETENTION_DAYS = 365;

function acknowledge(scope: IConstruct, control: ControlId, reason: string): void {
  Validations.of(scope).acknowledge({
    id: `${CFN_GUARD_PLUGIN}::${CONTROL_TOWER_TRADE_OFFS[control]}`,
    reason: `${control}: ${reason}`,
  });
}

/** Acknowledges the Control Tower findings the WebhookInbox design accepts, each with its reason. */
export function acknowledgeControlTowerTradeOffs(inbox: WebhookInbox): void {
  for (const fn of [inbox.verifyFunction, inbox.processorFunction]) {
    if ((fn.node.defaultChild as lambda.CfnFunction).vpcConfig !== undefined) continue;
    acknowledge(
      fn,
      'CT.LAMBDA.PR.3',
      'The Lambdas reach only AWS service endpoints (DynamoDB, SQS, S3, Secrets Manager) over TLS, with ' +
        'IAM; no private resource calls for a VPC. One would add NAT gateways or interface endpoints, a ' +
        'fixed monthly cost, for no isolation the IAM policies do not already give.',
    );
  }
  const forwarder = inbox.forwarderFunction;
  if (forwarder && (forwarder.node.defaultChild as lambda.CfnFunction).vpcConfig === undefined) {
    acknowledge(
      forwarder,
      'CT.LAMBDA.PR.3',
      'The forwarder calls public HTTPS destinations, EventBridge and SQS. In a VPC it would need a NAT ' +
        'gateway to reach them, a fixed monthly cost; outside one, its SSRF guard refuses private, ' +
        'loopback and metadata addresses after DNS resolution and at connect time.',
    );
  }

  for (const child of inbox.node.findAll()) {
    if (child instanceof logs.CfnLogGroup) acknowledgeLogGroup(child);
    if (child instanceof lambda.CfnPermission) acknowledgePermission(child);
    if (child instanceof lambda.CfnUrl && child.authType === 'NONE') {
      acknowledge(child, 'CT.LAMBDA.PR.5', NO_AUTHORIZER);
    }
    if (child instanceof apigw.CfnStage && child.tracingEnabled !== true) {
      acknowledge(
        child,
        'CT.APIGATEWAY.PR.2',
        'X-Ray tracing is opt-in (tracing: true): it is billed per trace, and for a one-route API the ' +
          'access log, the Lambda logs and the metrics already show where a request spent its time.',
      );
    }
    if (child instanceof apigwv2.CfnRoute && (child.authorizationType ?? 'NONE') === 'NONE') {
      acknowledge(child, 'CT.APIGATEWAY.PR.5', NO_AUTHORIZER);
    }
  }

  acknowledgeBucket(inbox.payloadBucket, {
    'CT.S3.PR.10':
      'SSE-S3 (AWS-owned keys). SSE-KMS would add a KMS request to every large delivery, or a key policy ' +
      'to maintain, for objects that are transient copies of bodies the provider still holds, readable ' +
      'by two Lambda roles only, and audited by the server access logs.',
    'CT.S3.PR.11':
      'Objects are transient: written once per payload hash (a rewrite carries the same bytes) and expired ' +
      'after every message that can point at them. Versioning would keep noncurrent copies of webhook ' +
      'bodies, which may carry personal data, past that expiry.',
    'CT.S3.PR.4':
      'Nothing reacts to objects here: the queue message that points at an object, sent after the write, ' +
      'is the notification. Event notifications would have no consumer.',
    'CT.S3.PR.9':
      'Objects must be deleted when they expire (bodies may carry personal data, and are kept no longer ' +
      'than a message can point at them); Object Lock would keep them, and needs versioning.',
  });
  if (inbox.accessLogsBucket) {
    acknowledgeBucket(inbox.accessLogsBucket, {
      'CT.S3.PR.2':
        "This bucket receives the payload bucket's server access logs. Logging its own access would log " +
        'every log delivery (S3 advises against a bucket logging into itself); CloudTrail data events ' +
        'audit access to it where required.',
      'CT.S3.PR.10':
        'SSE-S3, which server access log delivery supports as is; SSE-KMS on a log destination needs a ' +
        'customer managed key whose key policy admits the S3 logging service (the aws/s3 key does not work).',
      'CT.S3.PR.11':
        'S3 writes each log object once, under a unique key, and the objects expire after ' +
        'serverAccessLogsExpiry; versioning would only keep expired logs longer.',
      'CT.S3.PR.4': 'Nothing consumes the log objects as they arrive; they are read when investigating.',
      'CT.S3.PR.9':
        'Access logs expire after serverAccessLogsExpiry by design; a tamper-proof audit trail is ' +
        'CloudTrail with a locked bucket of your own.',
    });
  }
}

function acknowledgeLogGroup(group: logs.CfnLogGroup): void {
  if (group.kmsKeyId === undefined) {
    acknowledge(
      group,
      'CT.CLOUDWATCH.PR.3',
      'CloudWatch Logs encrypts every log group at rest. The lines carry no secret, signature or body ' +
        '(ids, outcomes, reason codes, sizes), so a customer managed key would add a key policy and KMS ' +
        'cost without protecting anything sensitive.',
    );
  }
  const days = group.retentionInDays;
  if (typeof days === 'number' && days < RULE_MIN_RETENTION_DAYS) {
    acknowledge(
      group,
      'CT.CLOUDWATCH.PR.2',
      `Kept ${days} days (logRetention; WAF's blocked-request log is fixed at 30): operational logs of ` +
        'per-delivery outcomes, not the record of what arrived (the inbox table and the DLQ are), and a ' +
        'shorter retention keeps less about senders. Set logRetention to a year or more where an audit ' +
        'trail must live in CloudWatch.',
    );
  }
}

function acknowledgePermission(permission: lambda.CfnPermission): void {
  if (permission.functionUrlAuthType === 'NONE' || permission.invokedViaFunctionUrl === true) {
    acknowledge(
      permission,
      'CT.LAMBDA.PR.2',
      `The function URL is public on purpose (auth type NONE). ${NO_AUTHORIZER}`,
    );
  } else if (
    permission.principal === 'apigateway.amazonaws.com' &&
    permission.sourceAccount !== undefined &&
    Token.isUnresolved(permission.sourceAccount)
  ) {
    acknowledge(
      permission,
      'CT.LAMBDA.PR.2',
      "Bound to this account (SourceAccount) and to this API's POST /webhooks/* (SourceArn). The rule " +
        'accepts only a literal account id, which an environment-agnostic stack has as { Ref: ' +
        'AWS::AccountId }; give the stack an env with an account and the rule passes.',
    );
  }
}

function acknowledgeBucket(bucket: s3.Bucket, reasons: Partial<Record<ControlId, string>>): void {
  const cfn = bucket.node.defaultChild as s3.CfnBucket;
  const resolve = (value: unknown) => Stack.of(bucket).resolve(value) as Record<string, unknown> | undefined;
  const encryption = resolve(cfn.bucketEncryption) as
    | { serverSideEncryptionConfiguration?: { serverSideEncryptionByDefault?: { sseAlgorithm?: string } }[] }
    | undefined;
  const algorithms = (encryption?.serverSideEncryptionConfiguration ?? []).map(
    (rule) => rule.serverSideEncryptionByDefault?.sseAlgorithm,
  );
  const findings: Partial<Record<ControlId, boolean>> = {
    'CT.S3.PR.2': cfn.loggingConfiguration === undefined,
    'CT.S3.PR.4': cfn.notificationConfiguration === undefined,
    'CT.S3.PR.9': cfn.objectLockEnabled !== true,
    'CT.S3.PR.10': !algorithms.some((a) => a?.startsWith('aws:kms')),
    'CT.S3.PR.11': resolve(cfn.versioningConfiguration)?.status !== 'Enabled',
  };
  for (const [control, reason] of Object.entries(reasons) as [ControlId, string][]) {
    if (findings[control]) acknowledge(bucket, control, reason);
  }
}
