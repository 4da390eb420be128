// Control Tower proactive controls (the cfn-guard rules bundled in @cdklabs/cdk-validator-cfnguard, run as
// a CDK policy-validation plugin): every front door passes every rule except the trade-offs docs/security.md
// lists, each acknowledgement answers a finding that really occurs, and the two findings that were real
// (API Gateway's permission without SourceAccount, the payload bucket without access logs) stay fixed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { type Environment, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CFN_GUARD_PLUGIN, CONTROL_TOWER_TRADE_OFFS, type ControlId } from '../../lib/control-tower';
import type { WebhookInboxProps } from '../../lib/webhook-inbox';
import { WebhookInboxStack } from '../../lib/webhook-inbox-stack';
import { readDoc } from '../support/docs';
import { createApp, destinationsConfigInput, STACK_NAME, type SynthOptions } from './synth';

type InboxOptions = Omit<WebhookInboxProps, 'config'>;

interface Violation {
  ruleName: string;
  description?: string;
  violatingConstructs: { constructPath: string }[];
}
interface SuppressedViolation extends Violation {
  acknowledgedId: string;
  reason?: string;
}
interface ValidationReport {
  pluginReports: {
    pluginName: string;
    violations: Violation[];
    suppressedViolations?: SuppressedViolation[];
  }[];
}

const RULE_TO_CONTROL = new Map<string, ControlId>(
  Object.entries(CONTROL_TOWER_TRADE_OFFS).map(([control, rule]) => [rule, control as ControlId]),
);

/**
 * Synthesizes the stack with the Control Tower rules as a validation plugin and reads the report. A failed
 * validation makes `synth` throw; the report is written first, and its path is in the message.
 */
function synthWithGuard(
  inbox: InboxOptions,
  env?: Environment,
  context?: SynthOptions['context'],
): { report: ValidationReport; stack: WebhookInboxStack } {
  const app = createApp({ context });
  Validations.of(app).addPlugins(new CfnGuardValidator());
  const stack = new WebhookInboxStack(app, STACK_NAME, { inbox, env });
  let directory: string;
  try {
    directory = app.synth().directory;
  } catch (error) {
    const found = /(\S+)\/validation-report\.json/.exec((error as Error).message);
    if (!found) throw error;
    directory = found[1] as string;
  }
  const report = JSON.parse(readFileSync(join(directory, 'validation-report.json'), 'utf8'));
  return { report, stack };
}

const guardReport = (report: ValidationReport) =>
  report.pluginReports.find((r) => r.pluginName === CFN_GUARD_PLUGIN);

const findings = (list: Violation[] = []) =>
  list.flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} ${c.constructPath}`)).sort();

/** Control Tower acknowledgements in the tree: the construct path and the rule. */
function acknowledgements(root: IConstruct): { path: string; rule: string; reason: string }[] {
  const found: { path: string; rule: string; reason: string }[] = [];
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        const prefix = `${CFN_GUARD_PLUGIN}::`;
        if (id.startsWith(prefix))
          found.push({ path: construct.node.path, rule: id.slice(prefix.length), reason });
      }
    }
  }
  return found;
}

/** Name, construct props, and context over cdk.json's (the destinations variant's config). */
const VARIANTS: [string, InboxOptions, SynthOptions['context']?][] = [
  ['REST with WAF (the default)', {}],
  ['HTTP API', { api: 'http' }],
  ['function URL', { api: 'function-url' }],
  ['REST without WAF, with X-Ray tracing', { waf: false, tracing: true }],
  ['REST with destinations of every kind', {}, { webhookInbox: destinationsConfigInput() }],
];

describe.each(VARIANTS)('Control Tower proactive controls: %s', (_name, inbox, context) => {
  let stack: WebhookInboxStack;
  let guard: ReturnType<typeof guardReport>;
  beforeAll(() => {
    const synthesized = synthWithGuard(inbox, undefined, context);
    stack = synthesized.stack;
    guard = guardReport(synthesized.report);
  }, 120_000);

  it('ran the bundled Control Tower rules', () => {
    expect(guard).toBeDefined();
  });

  it('fails no rule other than the acknowledged trade-offs', () => {
    expect(findings(guard?.violations)).toEqual([]);
  });

  it('acknowledges only controls in the trade-off list, each with its control id and a reason', () => {
    for (const suppressed of guard?.suppressedViolations ?? []) {
      const control = RULE_TO_CONTROL.get(suppressed.ruleName);
      expect(control, suppressed.ruleName).toBeDefined();
      expect(suppressed.reason).toMatch(new RegExp(`^${(control as string).replaceAll('.', '\\.')}: .{60}`));
    }
  });

  it('acknowledges nothing that does not occur: every acknowledgement suppressed a finding under it', () => {
    const suppressed = (guard?.suppressedViolations ?? []).flatMap((v) =>
      v.violatingConstructs.map((c) => ({ rule: v.ruleName, path: c.constructPath })),
    );
    for (const ack of acknowledgements(stack)) {
      expect(
        suppressed.some((s) => s.rule === ack.rule && `${s.path}/`.startsWith(`${ack.path}/`)),
        `${ack.rule} on ${ack.path}`,
      ).toBe(true);
    }
  });
});

describe('the security model (docs/security.md)', () => {
  it('lists exactly the trade-off controls in its Control Tower table', () => {
    const page = readDoc('docs/security.md');
    const start = page.indexOf('**Control Tower proactive controls.**');
    expect(start).toBeGreaterThan(0);
    const section = page.slice(start);
    const table = section.slice(0, section.indexOf('\n\n- '));
    const listed = new Set(
      table
        .split('\n')
        .filter((line) => /^\s*\| CT\./.test(line))
        .flatMap((line) => (line.split('|')[1] as string).split(',').map((id) => id.trim())),
    );
    expect([...listed].sort()).toEqual(Object.keys(CONTROL_TOWER_TRADE_OFFS).sort());
  });
});

describe('Control Tower findings that were real, and stay fixed', () => {
  it('binds the API Gateway permissions to the account: with a literal account CT.LAMBDA.PR.2 passes unacknowledged', () => {
    for (const api of ['rest', 'http'] as const) {
      const { report } = synthWithGuard({ api }, { account: '123456789012', region: 'eu-west-1' });
      const guard = guardReport(report);
      expect(findings(guard?.violations)).toEqual([]);
      expect(
        findings(guard?.suppressedViolations).filter((f) =>
          f.startsWith(CONTROL_TOWER_TRADE_OFFS['CT.LAMBDA.PR.2']),
        ),
      ).toEqual([]);
    }
  }, 120_000);

  it('logs access to the payload bucket: with serverAccessLogs off, CT.S3.PR.2 fails on it', () => {
    const { report } = synthWithGuard({ serverAccessLogs: false });
    expect(findings(guardReport(report)?.violations)).toEqual([
      `${CONTROL_TOWER_TRADE_OFFS['CT.S3.PR.2']} ${STACK_NAME}/Inbox/PayloadBucket/Resource`,
    ]);
  }, 120_000);
});
