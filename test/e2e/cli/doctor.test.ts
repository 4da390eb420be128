// `webhook-inbox doctor` given a stack it cannot read: the real command in a child process, with no AWS
// credentials and no network. CloudFormation is a small local fake (AWS_ENDPOINT_URL_CLOUDFORMATION) where
// a test needs an answer from it. Each mistake is one line on stderr with its exit code, never a stack.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { ALARM, type FakeAws, startFakeAws, TOPIC } from './doctor-fake-aws';
import { BIN, CLI_TIMEOUT_MS, type CliResult, json, makeProject, oneLineError } from './helpers';

const project = makeProject();
const home = mkdtempSync(join(tmpdir(), 'webhook-inbox-home-'));
let cloudformation: Server;
let cloudformationUrl: string;
let aws: FakeAws;

/** DescribeStacks for a stack the region does not have, as CloudFormation answers it (query protocol). */
beforeAll(async () => {
  cloudformation = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(400, { 'content-type': 'text/xml' });
      response.end(
        '<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type>' +
          '<Code>ValidationError</Code><Message>Stack with id nope does not exist</Message></Error>' +
          '<RequestId>4af14eec-350e-11e4-b260-EXAMPLE</RequestId></ErrorResponse>',
      );
    });
  });
  await new Promise<void>((resolve) => cloudformation.listen(0, '127.0.0.1', resolve));
  cloudformationUrl = `http://127.0.0.1:${(cloudformation.address() as AddressInfo).port}`;
  aws = await startFakeAws(Object.keys(parseConfig({}).providers));
});

afterAll(async () => {
  await new Promise((resolve) => cloudformation.close(resolve));
  await aws?.close();
  project.remove();
  rmSync(home, { recursive: true, force: true });
});

/** The environment of a machine with no AWS credentials, config or instance metadata anywhere. */
function bareEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', HOME: home, ...extra };
  for (const name of Object.keys(env)) {
    if (name.startsWith('AWS_') && !(name in extra)) delete env[name];
  }
  delete env.INIT_CWD;
  env.AWS_EC2_METADATA_DISABLED = 'true';
  env.AWS_CONFIG_FILE = join(home, 'no-config');
  env.AWS_SHARED_CREDENTIALS_FILE = join(home, 'no-credentials');
  return env;
}

function doctor(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'doctor', ...args], {
      cwd: project.dir,
      env: bareEnv(extra),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('webhook-inbox doctor', { timeout: CLI_TIMEOUT_MS }, () => {
  it("without credentials: the SDK's credential error as one line, exit 1", async () => {
    const result = await doctor(['--stack', 'nope'], { AWS_REGION: 'eu-west-1' });
    expect(result.code).toBe(1);
    const line = oneLineError(result);
    expect(line).toMatch(/^webhook-inbox: cannot read stack nope: .*credentials/i);
    expect(line).toContain('check your AWS credentials');
  });

  it('without a region: one line that says to pass --region, exit 1', async () => {
    const result = await doctor(['--stack', 'nope']);
    expect(result.code).toBe(1);
    expect(oneLineError(result)).toContain('pass --region');
  });

  it('a stack the region does not have: one line naming the region, exit 1', async () => {
    const result = await doctor(['--stack', 'nope', '--region', 'eu-west-1'], {
      AWS_ENDPOINT_URL_CLOUDFORMATION: cloudformationUrl,
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    });
    expect(result.code).toBe(1);
    expect(oneLineError(result)).toBe(
      'webhook-inbox: stack nope does not exist in eu-west-1 (check the stack name, or pass --region where it is deployed and --profile for its account)',
    );
  });

  it('an empty --stack or --region: a usage error, exit 2, before any AWS call', async () => {
    for (const args of [
      ['--stack', ''],
      ['--stack', 'WebhookInbox', '--region', ' '],
    ]) {
      const calls = aws.calls.length;
      const result = await doctor(args, aws.env());
      expect(result.code, args.join(' ')).toBe(2);
      expect(aws.calls.length).toBe(calls);
      expect(oneLineError(result)).toMatch(/argument '\s*' is invalid/);
    }
  });

  it('without --stack: a usage error, exit 2', async () => {
    const result = await doctor([]);
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toContain("required option '--stack <name>' not specified");
  });

  it('wired to AWS as the SDK reaches it: reads the stack, drills the alarm and puts it back, exit 0', async () => {
    const result = await doctor(['--stack', 'WebhookInbox', '--no-delivery', '--json'], aws.env());
    const report = json<{
      ok: boolean;
      region: string;
      checks: { id: string; status: string; detail: string; wrote?: string }[];
    }>(result);
    const status = Object.fromEntries(report.checks.map((c) => [c.id, `${c.status}: ${c.detail}`]));
    expect(result.code, JSON.stringify(status, null, 1)).toBe(0);
    expect(report).toMatchObject({ ok: true, region: 'eu-west-1' });
    for (const id of [
      'outputs',
      'read:table',
      'read:queue',
      'read:dlq',
      'read:bucket',
      'secret:github',
      'method',
      'alarm',
      'dlq:policy',
      'dlq:move',
    ]) {
      expect(status[id], id).toMatch(/^pass: /);
    }
    expect(status.alarm).toContain(TOPIC);
    expect(report.checks.find((c) => c.id === 'alarm')?.wrote).toContain(`set alarm ${ALARM} to ALARM`);
    expect(aws.calls.filter((c) => c.endsWith('SetAlarmState'))).toHaveLength(2);
  });

  it('wired: AWS refusals as they come over the wire: a denied move-task list fails (exit 1), a denied SetAlarmState cannot check', async () => {
    const denied = (action: string) => ({
      status: 400,
      body: {
        __type: 'com.amazon.coral.service#AccessDeniedException',
        message: `User: arn:aws:iam::123456789012:user/ops is not authorized to perform: ${action}`,
      },
    });
    aws.overrides.set('AmazonSQS.ListMessageMoveTasks', denied('sqs:listmessagemovetasks'));
    aws.overrides.set('GraniteServiceVersion20100801.SetAlarmState', denied('cloudwatch:SetAlarmState'));
    const setsBefore = aws.calls.filter((c) => c.endsWith('SetAlarmState')).length;
    try {
      const result = await doctor(['--stack', 'WebhookInbox', '--no-delivery', '--json'], aws.env());
      const report = json<{
        checks: { id: string; status: string; detail: string; fix?: string; wrote?: string }[];
      }>(result);
      const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
      expect(result.code).toBe(1);
      expect(byId['dlq:move']).toMatchObject({ status: 'fail' });
      expect(byId['dlq:move']?.fix).toContain('sqs:ListMessageMoveTasks');
      expect(byId.alarm).toMatchObject({ status: 'cannot-check' });
      expect(byId.alarm?.detail).toContain('cloudwatch:SetAlarmState');
      expect(byId.alarm?.wrote).toBeUndefined();
      expect(aws.calls.filter((c) => c.endsWith('SetAlarmState')).length - setsBefore).toBe(1);
    } finally {
      aws.overrides.clear();
    }
  });

  it.each([
    ['ExpiredToken', 'The security token included in the request is expired', 'check your AWS credentials'],
    [
      'AccessDenied',
      'User: arn:aws:iam::123456789012:user/ops is not authorized to perform: cloudformation:DescribeStacks',
      'check the stack name, --region and --profile',
    ],
  ])(
    'wired: DescribeStacks refused with %s is one line naming it, exit 1, no checklist',
    async (code, message, hint) => {
      aws.overrides.set('cloudformation.DescribeStacks', {
        status: 403,
        type: 'text/xml',
        body: `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>r</RequestId></ErrorResponse>`,
      });
      try {
        const result = await doctor(['--stack', 'WebhookInbox', '--json'], aws.env());
        expect(result.code).toBe(1);
        const line = oneLineError(result);
        expect(line).toContain(`cannot read stack WebhookInbox: ${message}`);
        expect(line).toContain(hint);
        expect(aws.calls.at(-1)).toBe('cloudformation.DescribeStacks');
      } finally {
        aws.overrides.clear();
      }
    },
  );
});
