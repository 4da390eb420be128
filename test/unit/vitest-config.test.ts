// The test run's environment silences the AWS SDK's "will require Node 22" notice, and only that: a child
// process with the environment the tests run in builds a client without it, and still prints any other
// warning.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function nodeWarnings(script: string): string {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: process.env,
  });
  expect(child.status, child.stderr).toBe(0);
  return child.stderr;
}

describe('test environment', () => {
  it('builds an SDK client without the Node version notice, and keeps other warnings', () => {
    const stderr = nodeWarnings(`
      import { SQSClient } from '@aws-sdk/client-sqs';
      new SQSClient({ region: 'eu-west-1' }).destroy();
      process.emitWarning('a warning of our own');
    `);
    expect(stderr).not.toContain('NodeVersionSupportWarning');
    expect(stderr).toContain('a warning of our own');
  });
});
