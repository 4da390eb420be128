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
