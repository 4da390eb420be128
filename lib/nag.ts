// cdk-nag (v3): the AwsSolutions pack runs as a CDK validation plugin on every synth, and each finding the
// design accepts is acknowledged on the narrowest construct, with the reason. Acknowledgements that depend
// on a prop (WAF off, no server access logs, tracing on) are read off the synthesized resources, so turning the
// setting back on also drops its acknowledgement.
import { type App, type CfnResource, Stack, Validations } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { ARCHIVE_PREFIX } from '../lambdas/core/archive';
import { PAYLOADS_PREFIX } from '../lambdas/core/envelope';
import type { WebhookInbox } from './webhook-inbox';

/** Runs the AwsSolutions rules when the app synthesizes; an unacknowledged error fails the synth. */
export function addNagChecks(app: App): AwsSolutionsChecks {
  const checks = new AwsSolutionsChecks(app);
  Validations.of(app).addPlugins(checks);
  return checks;
}

function acknowledge(scope: IConstruct | undefined, id: string, reason: string): void {
  if (scope) Validations.of(scope).acknowledge({ id, reason });
}

function logicalId(resource: IConstruct): string {
  return Stack.of(resource).getLogicalId(resource.node.defaultChild as CfnResource);
}

/** Why the webhook route has no authorizer: shared with lib/control-tower.ts. */
export const NO_AUTHORIZER =
  'Webhook senders cannot present AWS credentials, Cognito tokens or API keys. Authenticity is the ' +
  "provider's HMAC signature over the raw body, which the verify Lambda checks (constant time, timestamp " +
  'window) before anything is stored; unsigned requests are answered 401.';

/** Acknowledges the findings the WebhookInbox design accepts, each with its reason. */
export function acknowledgeInboxFindings(inbox: WebhookInbox): void {
  const forwarder = inbox.forwarderFunction;
  for (const fn of [inbox.verifyFunction, inbox.processorFunction, ...(forwarder ? [forwarder] : [])]) {
    acknowledge(
      fn,
      'AwsSolutions-L1',
      'Pinned to nodejs22.x on purpose: the bundles are built for target node22 and the test suite runs on ' +
        'Node 20/22. Moving to a newer runtime is a deliberate upgrade, not a drift.',
    );
    const cfn = fn.node.defaultChild as lambda.CfnFunction;
    const tracing = Stack.of(fn).resolve(cfn.tracingConfig) as { mode?: string } | undefined;
    if (tracing?.mode === 'Active') {
      acknowledge(
        fn.role,
        'AwsSolutions-IAM5[Resource::*]',
        'xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions; added ' +
          'only because tracing is on.',
      );
    }
  }

  const bucketArn = `<${logicalId(inbox.payloadBucket)}.Arn>`;
  const objects = `AwsSolutions-IAM5[Resource::${bucketArn}/${PAYLOADS_PREFIX}*]`;
  const archive = `AwsSolutions-IAM5[Resource::${bucketArn}/${ARCHIVE_PREFIX}*]`;
  acknowledge(
    inbox.verifyFunction.role,
    objects,
    'Payload objects are keyed per delivery, so the key is not known at deploy time. The statement is ' +
      's3:PutObject only, on the large-body objects of this one bucket (not the archive).',
  );
  acknowledge(
    inbox.processorFunction.role,
    objects,
    'Payload objects are keyed per delivery, so the key is not known at deploy time. The statement is ' +
      's3:GetObject and s3:PutObject (an old object rewritten when read), on the large-body objects of this one bucket.',
  );
  acknowledge(
    inbox.processorFunction.role,
    archive,
    "Archive objects are keyed by their bytes' SHA-256, so the key is not known at deploy time. The " +
      'statement is s3:PutObject only, on the archive objects of this one bucket.',
  );
  if (forwarder) {
    acknowledge(
      forwarder.role,
      objects,
      'Payload objects are keyed per delivery, so the key is not known at deploy time. The statement is ' +
        's3:GetObject (large bodies) and s3:PutObject (oversize EventBridge events), on this one bucket.',
    );
  }
  acknowledgeDestinationFindings(inbox);

  const bucket = inbox.payloadBucket.node.defaultChild as s3.CfnBucket;
  if (bucket.loggingConfiguration === undefined) {
    acknowledge(
      inbox.payloadBucket,
      'AwsSolutions-S1',
      'Server access logs turned off by the deployer (serverAccessLogs: false). The bucket is private, ' +
        'written and read only by the two Lambda roles, and its objects expire after every message that can ' +
        'point at them; CloudTrail data events can audit object access instead.',
    );
  }

  for (const secret of Object.values(inbox.secrets)) {
    acknowledge(
      secret,
      'AwsSolutions-SMG4',
      "A provider's signing secret is issued or registered at the provider (GitHub, Stripe, ...), which a " +
        'rotation Lambda cannot change. Rotation is manual (put-secret-value, or `npx webhook-inbox secrets ' +
        'rotate`) and has no gap: the verify Lambda accepts AWSCURRENT and AWSPREVIOUS.',
    );
  }

  if (inbox.restApi) {
    const api = inbox.restApi;
    acknowledge(api, 'AwsSolutions-APIG4', NO_AUTHORIZER);
    acknowledge(api, 'AwsSolutions-COG4', NO_AUTHORIZER);
    acknowledge(
      api,
      'AwsSolutions-APIG2',
      'A request validator checks the {provider} path parameter. The body cannot be validated: it is opaque ' +
        'signed bytes (binaryMediaTypes */*) that must reach the verify Lambda byte for byte, with no model.',
    );
    acknowledge(
      api.node.tryFindChild('CloudWatchRole'),
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      "The account-level role API Gateway needs to write access and execution logs; AWS's managed policy " +
        'is the documented one for it and is maintained by AWS.',
    );
    if (!inbox.webAcl) {
      acknowledge(
        api,
        'AwsSolutions-APIG3',
        'WAF turned off by the deployer (waf: false). Stage throttling still caps the request rate, and ' +
          'every request must carry a valid signature.',
      );
    }
  }
  if (inbox.httpApi) {
    acknowledge(inbox.httpApi, 'AwsSolutions-APIG4', NO_AUTHORIZER);
  }
}

/** The forward destinations' findings: their signing secrets and the forwarder's event source control. */
function acknowledgeDestinationFindings(inbox: WebhookInbox): void {
  const destinations = inbox.destinations;
  if (!destinations) return;
  for (const secret of Object.values(destinations.secrets)) {
    acknowledge(
      secret,
      'AwsSolutions-SMG4',
      "A destination's signing secret is configured in the receiving service, which a rotation Lambda " +
        'cannot update. Rotation is manual (put-secret-value) and can be gapless: Standard Webhooks ' +
        'carries a signature per secret, so AWSCURRENT and AWSPREVIOUS can both sign during the change.',
    );
  }
  const control = destinations.eventSourceControl;
  acknowledge(
    control,
    'AwsSolutions-IAM5[Resource::*]',
    'lambda:ListEventSourceMappings supports no resource-level permission and no condition key; it only ' +
      'reads mapping settings. The forwarder calls it to find its own mapping for a destination queue.',
  );
  acknowledge(
    control,
    'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:lambda:<AWS::Region>:<AWS::AccountId>:event-source-mapping:*]',
    "A mapping's ARN (its UUID) exists only once the mapping does, and the mapping depends on the " +
      'function. lambda:UpdateEventSourceMapping is allowed only where lambda:FunctionArn is the ' +
      "forwarder's own ARN: it can pause and resume its own destination queues and nothing else.",
  );
}
