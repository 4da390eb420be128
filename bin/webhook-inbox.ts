// The CDK app (cdk.json "app"): one WebhookInbox stack, checked by cdk-nag on every synth. An invalid
// `webhookInbox` config ends the synth with the ConfigError message alone, naming the key, and exit code 1.
import { App } from 'aws-cdk-lib';
import { ConfigError } from '../config/index';
import { addNagChecks } from '../lib/nag';
import { WebhookInboxStack } from '../lib/webhook-inbox-stack';

try {
  const app = new App();
  new WebhookInboxStack(app, 'WebhookInbox');
  addNagChecks(app);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Invalid configuration: ${error.message}`);
  process.exit(1);
}
