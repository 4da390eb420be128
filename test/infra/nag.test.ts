// cdk-nag AwsSolutions: the shipped stack synthesizes with no unacknowledged finding, and every
// acknowledgement answers a finding that really occurs (none is stale or speculative).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/index';
import { CFN_GUARD_PLUGIN } from '../../lib/control-tower';
import { addNagChecks } from '../../lib/nag';
import { WebhookInbox, type WebhookInboxProps } from '../../lib/webhook-inbox';
import { WebhookInboxStack } from '../../lib/webhook-inbox-stack';
import { createApp, destinationsConfigInput, projectConfig, STACK_NAME, type SynthOptions } from './synth';

type InboxOptions = Omit<WebhookInboxProps, 'config'>;

const WITH_DESTINATIONS: SynthOptions['context'] = { webhookInbox: destinationsConfigInput() };

/** Name, construct props, and context over cdk.json's (the destinations variants' config). */
const VARIANTS: [string, InboxOptions, SynthOptions['context']?][] = [
  ['REST with WAF (the default)', {}],
  ['HTTP API', { api: 'http' }],
  ['function URL', { api: 'function-url' }],
  [
    'REST without WAF, with X-Ray tracing, without server access logs',
    { waf: false, tracing: true, serverAccessLogs: false },
  ],
  ['REST with destinations of every kind', {}, WITH_DESTINATIONS],
  [
    'function URL with destinations and X-Ray tracing',
    { api: 'function-url', tracing: true },
    WITH_DESTINATIONS,
  ],
];

interface ValidationReport {
  pluginReports: { pluginName: string; violations: { ruleName: string; severity: string }[] }[];
}

/** Synthesizes the stack with the AwsSolutions plugin, as bin/webhook-inbox.ts does, and reads the report. */
function synthWithNag(inbox: InboxOptions, context?: SynthOptions['context']): ValidationReport {
  const app = createApp({ context });
  new WebhookInboxStack(app, STACK_NAME, { inbox });
  addNagChecks(app);
  const assembly = app.synth();
  return JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8'));
}

/** cdk-nag rule ids acknowledged anywhere in the tree, with their reasons (not lib/control-tower.ts's). */
function acknowledgements(root: IConstruct): Map<string, string> {
  const found = new Map<string, string>();
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        if (id.startsWith(`${CFN_GUARD_PLUGIN}::`)) continue;
        found.set(id.replace(/^annotation::/i, ''), reason);
      }
    }
  }
  return found;
}

describe('cdk-nag AwsSolutions', () => {
  it.each(VARIANTS)(
    'finds no unacknowledged error or warning: %s',
    (_name, inbox, context) => {
      const report = synthWithNag(inbox, context);
      const violations = report.pluginReports.flatMap((r) =>
        r.violations.map((v) => `${v.severity} ${v.ruleName}`),
      );
      expect(violations).toEqual([]);
    },
    120_000,
  );

  it.each(VARIANTS)(
    'acknowledges only findings that occur, each with a reason: %s',
    (_name, inbox, context) => {
      // The same construct without acknowledgements shows what the rules really find.
      const bare = new Stack(createApp({ context }), 'Bare');
      const config = context ? parseConfig(context.webhookInbox) : projectConfig();
      new WebhookInbox(bare, 'Inbox', { ...inbox, config });
      const findings = new Set(
        new AwsSolutionsChecks().validateScope(bare).violations.map((violation) => violation.ruleName),
      );

      const app = createApp({ context });
      const stack = new WebhookInboxStack(app, STACK_NAME, { inbox });
      const acknowledged = acknowledgements(stack);
      expect([...acknowledged.keys()].sort()).toEqual([...findings].sort());
      for (const reason of acknowledged.values()) expect(reason.length).toBeGreaterThan(60);
    },
    120_000,
  );
});
