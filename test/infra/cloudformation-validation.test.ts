// The one infra test that keeps aws-cdk-lib's built-in CloudFormation template validation on (about 8 s):
// the template is valid against the CloudFormation resource schemas and CDK's default rules.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebhookInboxStack } from '../../lib/webhook-inbox-stack';
import { createApp, STACK_NAME } from './synth';

describe('built-in CloudFormation validation', () => {
  it('reports nothing for the shipped stack', () => {
    const app = createApp({ cloudFormationValidation: true });
    new WebhookInboxStack(app, STACK_NAME);
    const assembly = app.synth();
    const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as {
      pluginReports: { pluginName: string; violations: unknown[] }[];
    };
    expect(report.pluginReports.flatMap((r) => r.violations)).toEqual([]);
  }, 180_000);
});
