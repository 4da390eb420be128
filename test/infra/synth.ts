// Builds the stack the way `cdk synth` does (cdk.json context, stack name, nag acknowledgements), minus the
// slow parts: no asset bundling (`aws:cdk:bundling-stacks: []`) and, unless asked for, no built-in
// CloudFormation template validation.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CONTEXT_KEY, type Config, parseConfig } from '../../config/index';
import type { WebhookInboxProps } from '../../lib/webhook-inbox';
import { WebhookInboxStack } from '../../lib/webhook-inbox-stack';

export const PROJECT_ROOT = join(import.meta.dirname, '../..');
export const STACK_NAME = 'WebhookInbox';

/** The `context` block of cdk.json: feature flags and the shipped `webhookInbox` config. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

export function projectConfig(): Config {
  return parseConfig(cdkJsonContext()[CONTEXT_KEY]);
}

export const IMPORTED_DESTINATION_SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:partner-signing-AbC123';
export const IMPORTED_BUS_ARN = 'arn:aws:events:eu-west-1:210987654321:event-bus/audit';
export const TARGET_QUEUE_ARN = 'arn:aws:sqs:eu-west-1:210987654321:crm-inbound';

/**
 * cdk.json's config with one destination of each kind and variant: a created and an imported HTTP secret,
 * a created and an imported bus, an SQS target in another account, and the handlers.
 */
export function destinationsConfigInput(): Record<string, unknown> {
  return {
    ...(cdkJsonContext()[CONTEXT_KEY] as Record<string, unknown>),
    destinations: {
      handlers: { type: 'handlers' },
      orders: {
        type: 'http',
        url: 'https://orders.example.com/hooks',
        maxConcurrency: 3,
        retrySchedule: ['10s', '1m', '5m'],
        responseTimeoutSeconds: 25,
      },
      partner: {
        type: 'http',
        url: 'https://partner.example/in',
        secretArn: IMPORTED_DESTINATION_SECRET_ARN,
      },
      events: { type: 'eventbridge', filter: { eventTypes: ['customer.*'] } },
      audit: { type: 'eventbridge', busArn: IMPORTED_BUS_ARN, maxConcurrency: 10 },
      crm: { type: 'sqs', queueArn: TARGET_QUEUE_ARN, whenDisabled: 'dlq' },
    },
  };
}

/** Synth options with `destinationsConfigInput()` as the `webhookInbox` context. */
export function withDestinations(options: SynthOptions = {}): SynthOptions {
  return { ...options, context: { [CONTEXT_KEY]: destinationsConfigInput(), ...options.context } };
}

export interface SynthOptions {
  /** Construct props other than the config. */
  inbox?: Omit<WebhookInboxProps, 'config'>;
  /** Context entries over cdk.json's, e.g. a different `webhookInbox`. */
  context?: Record<string, unknown>;
  /** Run the built-in CloudFormation template validation (about 8 s). */
  cloudFormationValidation?: boolean;
}

export function createApp(options: SynthOptions = {}): App {
  return new App({
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...options.context },
    builtinCloudFormationValidation: options.cloudFormationValidation ?? false,
  });
}

export function synthStack(options: SynthOptions = {}): {
  app: App;
  stack: WebhookInboxStack;
  template: Template;
} {
  const app = createApp(options);
  const stack = new WebhookInboxStack(app, STACK_NAME, { inbox: options.inbox });
  return { app, stack, template: Template.fromStack(stack) };
}

type Resource = { Type: string; Properties?: Record<string, unknown>; [key: string]: unknown };

/** Resources of one type, by logical id. */
export function resourcesOf(template: Template, type: string): Record<string, Resource> {
  return template.findResources(type) as Record<string, Resource>;
}

export function logicalIdOf(template: Template, type: string, match: (r: Resource) => boolean): string {
  const found = Object.entries(resourcesOf(template, type)).filter(([, r]) => match(r));
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0]![0];
}

/** Logical id of the Lambda of one service (SERVICE.verify or SERVICE.process), found by its environment. */
export function functionIdOf(template: Template, service: string): string {
  return logicalIdOf(
    template,
    'AWS::Lambda::Function',
    (r) =>
      (r.Properties?.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables
        .POWERTOOLS_SERVICE_NAME === service,
  );
}

export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: unknown;
}

/** Every policy statement in the template: identity policies and resource policies. */
export function allStatements(template: Template): { logicalId: string; statement: Statement }[] {
  const out: { logicalId: string; statement: Statement }[] = [];
  for (const [logicalId, resource] of Object.entries(
    template.toJSON().Resources as Record<string, Resource>,
  )) {
    const props = resource.Properties ?? {};
    const documents = [
      props.PolicyDocument,
      ...((props.Policies as { PolicyDocument: unknown }[]) ?? []).map((p) => p.PolicyDocument),
    ];
    for (const document of documents) {
      for (const statement of (document as { Statement?: Statement[] })?.Statement ?? []) {
        out.push({ logicalId, statement });
      }
    }
  }
  return out;
}

export function actionsOf(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

/** `arn:<partition>:<service>:<region>:<account>:<resource>` as CDK's formatArn writes it in a template. */
export function accountArn(service: string, resource: string): unknown {
  return {
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        `:${service}:`,
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        `:${resource}`,
      ],
    ],
  };
}
