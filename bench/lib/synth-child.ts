// Child entry for the cost model: synthesizes the stack offline the way test/infra/synth.ts does (cdk.json's
// context, asset bundling skipped, no CloudFormation validation), once per front door (REST API, HTTP API,
// function URL), and prints what the
// cost depends on as one JSON line. A child process, so aws-cdk-lib's heap stays out of the process whose
// CPU time the cost model measures.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import type { FrontDoorKind } from '../../lib/webhook-inbox';
import { WebhookInboxStack } from '../../lib/webhook-inbox-stack';
import { type CfnTemplate, type TemplateFacts, templateFacts } from './template-facts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const STACK_NAME = 'WebhookInbox';

function synth(api: FrontDoorKind): TemplateFacts {
  const cdkJson = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const app = new App({
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
  new WebhookInboxStack(app, STACK_NAME, { inbox: { api } });
  const template = app.synth().getStackByName(STACK_NAME).template as CfnTemplate;
  return templateFacts(template, api);
}

const doors: FrontDoorKind[] = ['rest', 'http', 'function-url'];
process.stdout.write(`${JSON.stringify(Object.fromEntries(doors.map((door) => [door, synth(door)])))}\n`);
