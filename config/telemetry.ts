// Metric and service names shared by the Lambdas (which emit them through EMF) and the CDK stack (whose
// alarms and dashboard read them). Every metric carries the `service` dimension, which is what alarms use.

export const METRICS_NAMESPACE = 'WebhookInbox';

export const SERVICE = {
  verify: 'webhook-inbox-verify',
  process: 'webhook-inbox-process',
  forward: 'webhook-inbox-forward',
} as const;

/**
 * The forwarder's metrics, each with a `destination` dimension (the destination id) besides `service`:
 * the alarms and widgets are per destination.
 */
export const FORWARD_METRICS = {
  delivered: 'ForwardDelivered',
  /** An attempt that failed (any reason): the numerator of the failure rate. */
  attemptFailed: 'ForwardAttemptFailed',
  deadLettered: 'ForwardDeadLettered',
  /**
   * 1 whenever the forwarder finds the destination disabled or disables it; 0 with each delivery, so the
   * alarm (which ignores missing data) clears once the destination takes deliveries again.
   */
  disabled: 'DestinationDisabled',
  /** From the provider's delivery to the destination's 2xx. */
  latency: 'ForwardLatency',
} as const;

export const FORWARD_DIMENSION = 'destination';

export const VERIFY_METRICS = {
  accepted: 'DeliveryAccepted',
  duplicate: 'DeliveryDuplicate',
  /** Slack/Zoom URL-verification requests answered without enqueueing. */
  handshake: 'UrlVerificationAnswered',
  conflict: 'DeliveryConflict',
  inFlight: 'DeliveryInFlight',
  rejected: 'DeliveryRejected',
  /** Signature, timestamp and header failures: a spike means an attack or a rotated secret. */
  signatureFailure: 'SignatureFailure',
  dependencyError: 'DependencyError',
  enqueueLatency: 'EnqueueLatency',
  /** A delivery verified with a previous secret: the provider has not been switched over yet. */
  previousSecretUsed: 'PreviousSecretUsed',
} as const;

export const PROCESS_METRICS = {
  processed: 'EventProcessed',
  duplicateSkipped: 'EventDuplicateSkipped',
  /** The handler's `acceptIfNewer` found newer state already handled: acknowledged without its effect. */
  staleSkipped: 'EventStaleSkipped',
  transientFailure: 'EventTransientFailure',
  /** Given up (a permanent error, or the last receive failed): on its way to the DLQ. */
  deadLettered: 'EventDeadLettered',
  /** Later receives of a message already given up, until SQS moves it. */
  draining: 'EventDraining',
  unknownEvent: 'EventUnknownType',
  /** The effect ran but its processed mark could not be written. */
  markFailed: 'EventMarkFailed',
  messageAge: 'MessageAgeAtProcessing',
} as const;

/** CloudFormation output names the CLI reads with DescribeStacks. */
export const STACK_OUTPUTS = {
  apiUrl: 'ApiUrl',
  queueUrl: 'QueueUrl',
  queueArn: 'QueueArn',
  dlqUrl: 'DlqUrl',
  dlqArn: 'DlqArn',
  tableName: 'TableName',
  bucketName: 'PayloadBucketName',
  /** Prefixes; the suffix is the provider id in PascalCase (`standard-webhooks` -> `StandardWebhooks`). */
  endpointPrefix: 'Endpoint',
  secretArnPrefix: 'SecretArn',
  forwarderFunctionName: 'ForwarderFunctionName',
  /** Prefixes; the suffix is the destination id in PascalCase, as for providers. */
  destinationQueueUrlPrefix: 'DestinationQueueUrl',
  destinationQueueArnPrefix: 'DestinationQueueArn',
  destinationDlqUrlPrefix: 'DestinationDlqUrl',
  destinationDlqArnPrefix: 'DestinationDlqArn',
  destinationSecretArnPrefix: 'DestinationSecretArn',
  eventBusArn: 'EventBusArn',
} as const;

export function outputSuffix(providerId: string): string {
  return providerId
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
