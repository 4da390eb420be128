// Child entry for the cost model: synthesizes the stack offline the way test/infra/synth.ts does (cdk.json's
// context, asset bundling skipped, no CloudFormation validation), once per front door (REST API, HTTP API,
// function URL), and with the REST API once more per destination type (the handlers and one destination of
// that type), and prints what the cost depends on as one JSON line. A child process, so aws-cdk-lib's heap stays out of
// the process whose CPU time the cost model measures.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { CONTEXT_KEY } from '../../config/index';
import type { FrontDoorKind } from '../../lib/webhook-inbox';
import { WebhookInboxStack } from '../../lib/webhook-inbox-stack';
import { BENCH_DESTINATIONS, type ForwardType } from './destination-cost';
import { type CfnTemplate, type TemplateFacts, templateFacts } from './template-facts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const STACK_NAME = 'WebhookInbox';

function synth(api: FrontDoorKind, destination?: ForwardType): TemplateFacts {
  const { context } = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, Record<string, unknown>>;
  };
  // The handlers stay: the destination's rows are what forwarding adds to the pipeline as it is.
  const destinations = destination && {
    handlers: { type: 'handlers' },
    [destination]: BENCH_DESTINATIONS[destination],
  };
  const inbox = destinations ? { ...context[CONTEXT_KEY], destinations } : context[CONTEXT_KEY];
  const app = new App({
    context: { ...context, [CONTEXT_KEY]: inbox, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
  new WebhookInboxStack(app, STACK_NAME, { inbox: { api } });
  const template = app.synth().getStackByName(STACK_NAME).template as CfnTemplate;
  return templateFacts(template, api);
}

const doors: FrontDoorKind[] = ['rest', 'http', 'function-url'];
const types = Object.keys(BENCH_DESTINATIONS) as ForwardType[];
process.stdout.write(
  `${JSON.stringify({
    ...Object.fromEntries(doors.map((door) => [door, synth(door)])),
    destinations: Object.fromEntries(types.map((type) => [type, synth('rest', type)])),
  })}\n`,
);
