// The deployable stack: reads the `webhookInbox` context, builds one WebhookInbox, and publishes the outputs
// the CLI reads with DescribeStacks (names from config/telemetry.ts). Environment-agnostic: no account or
// region, no lookups, so `cdk synth` runs offline without credentials.
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { CONTEXT_KEY, type Config, ConfigError, parseConfig } from '../config/index';
import { outputSuffix, STACK_OUTPUTS } from '../config/telemetry';
import { acknowledgeControlTowerTradeOffs } from './control-tower';
import { acknowledgeInboxFindings } from './nag';
import { WebhookInbox, type WebhookInboxProps } from './webhook-inbox';

export interface WebhookInboxStackProps extends StackProps {
  /**
   * The configuration.
   * @default - parsed from the `webhookInbox` context (cdk.json, or `-c webhookInbox='<json>'`)
   */
  readonly config?: Config;
  /**
   * Construct props other than the config.
   * @default - the construct's defaults
   */
  readonly inbox?: Omit<WebhookInboxProps, 'config'>;
}

/**
 * The `webhookInbox` context value, parsed. Context given on the command line (`-c key=value`) arrives as a
 * string, so a string is read as JSON.
 * @throws ConfigError naming the bad key
 */
export function configFromContext(scope: Construct): Config {
  let raw: unknown = scope.node.tryGetContext(CONTEXT_KEY);
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      throw new ConfigError(`${CONTEXT_KEY}: not valid JSON`);
    }
  }
  return parseConfig(raw);
}

export class WebhookInboxStack extends Stack {
  public readonly inbox: WebhookInbox;

  constructor(scope: Construct, id: string, props: WebhookInboxStackProps = {}) {
    super(scope, id, {
      description: 'webhook-inbox: verified, deduplicated, queued webhooks',
      ...props,
    });
    const config = props.config ?? configFromContext(this);
    this.inbox = new WebhookInbox(this, 'Inbox', { ...props.inbox, config });
    acknowledgeInboxFindings(this.inbox);
    acknowledgeControlTowerTradeOffs(this.inbox);

    const output = (name: string, value: string, description: string) =>
      new CfnOutput(this, name, { value, description });
    output(
      STACK_OUTPUTS.apiUrl,
      this.inbox.apiUrl,
      'Base URL of the API stage or function URL (no trailing slash)',
    );
    for (const [provider, url] of Object.entries(this.inbox.endpoints)) {
      output(
        `${STACK_OUTPUTS.endpointPrefix}${outputSuffix(provider)}`,
        url,
        `URL to register with ${provider}`,
      );
    }
    output(STACK_OUTPUTS.queueUrl, this.inbox.queue.queueUrl, 'Main queue URL');
    output(STACK_OUTPUTS.queueArn, this.inbox.queue.queueArn, 'Main queue ARN');
    output(STACK_OUTPUTS.dlqUrl, this.inbox.deadLetterQueue.queueUrl, 'Dead-letter queue URL');
    output(STACK_OUTPUTS.dlqArn, this.inbox.deadLetterQueue.queueArn, 'Dead-letter queue ARN');
    output(STACK_OUTPUTS.tableName, this.inbox.table.tableName, 'Inbox table name');
    output(STACK_OUTPUTS.bucketName, this.inbox.payloadBucket.bucketName, 'Payload bucket name');
    for (const [provider, secret] of Object.entries(this.inbox.secrets)) {
      output(
        `${STACK_OUTPUTS.secretArnPrefix}${outputSuffix(provider)}`,
        secret.secretArn,
        `Signing secret of ${provider}: aws secretsmanager put-secret-value --secret-id <this> --secret-string <secret>`,
      );
    }
    this.destinationOutputs(output);
  }

  /** The forwarder and each destination's resources, for the CLI's `destinations` and `dlq` commands. */
  private destinationOutputs(output: (name: string, value: string, description: string) => void): void {
    const { destinations, forwarderFunction, eventBus } = this.inbox;
    if (!destinations || !forwarderFunction) return;
    output(STACK_OUTPUTS.forwarderFunctionName, forwarderFunction.functionName, 'Forwarder Lambda name');
    for (const [id, { queue, deadLetterQueue }] of Object.entries(destinations.queues)) {
      const suffix = outputSuffix(id);
      output(
        `${STACK_OUTPUTS.destinationQueueUrlPrefix}${suffix}`,
        queue.queueUrl,
        `Queue of destination ${id}`,
      );
      output(
        `${STACK_OUTPUTS.destinationQueueArnPrefix}${suffix}`,
        queue.queueArn,
        `Queue ARN of destination ${id}`,
      );
      output(
        `${STACK_OUTPUTS.destinationDlqUrlPrefix}${suffix}`,
        deadLetterQueue.queueUrl,
        `Dead-letter queue of destination ${id}`,
      );
      output(
        `${STACK_OUTPUTS.destinationDlqArnPrefix}${suffix}`,
        deadLetterQueue.queueArn,
        `Dead-letter queue ARN of destination ${id}`,
      );
    }
    for (const [id, secret] of Object.entries(destinations.secrets)) {
      output(
        `${STACK_OUTPUTS.destinationSecretArnPrefix}${outputSuffix(id)}`,
        secret.secretArn,
        `Signing secret of destination ${id}: the receiver verifies with whsec_ followed by its value`,
      );
    }
    if (eventBus) {
      output(STACK_OUTPUTS.eventBusArn, eventBus.eventBusArn, 'Event bus of the eventbridge destinations');
    }
  }
}
