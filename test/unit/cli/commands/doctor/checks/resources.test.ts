// The read items: a resource that is gone or refused fails (the CLI cannot read it), but a call AWS did
// not answer this time (throttled, down, credentials that expired mid-run) says nothing about the
// resource, so the item is "cannot check" with the reason, never a failure with a wrong fix.
import { describe, expect, it } from 'vitest';
import { checkResources } from '../../../../../../cli/commands/doctor/checks/resources';
import { DependencyError } from '../../../../../../lambdas/core/errors';
import { accessDenied, awsError, fakeContext } from '../fake-context';

const outputsPassed = [{ id: 'outputs', title: 'o', status: 'pass' as const, detail: '' }];

async function readQueueFailingWith(cause: Error) {
  const ctx = fakeContext();
  ctx.probes.queue = () => Promise.reject(new DependencyError('sqs', 'GetQueueAttributes', { cause }));
  const results = await checkResources(ctx, outputsPassed);
  return results.find((r) => r.id === 'read:queue');
}

describe('checkResources', () => {
  it('fails a queue that is not there, with the redeploy fix', async () => {
    const result = await readQueueFailingWith(
      awsError('QueueDoesNotExist', 'The specified queue does not exist.'),
    );
    expect(result).toMatchObject({ status: 'fail' });
    expect(result?.fix).toContain('cdk deploy');
  });

  it('fails a read the credentials are refused, naming the permission', async () => {
    const result = await readQueueFailingWith(accessDenied());
    expect(result).toMatchObject({ status: 'fail' });
    expect(result?.fix).toContain('sqs:GetQueueAttributes');
  });

  it('cannot check, rather than fail, a read that SQS throttled', async () => {
    const result = await readQueueFailingWith(awsError('ThrottlingException', 'Rate exceeded'));
    expect(result).toMatchObject({ status: 'cannot-check' });
    expect(result?.detail).toContain('Rate exceeded');
    expect(result?.fix).toBeUndefined();
  });

  it('cannot check, rather than fail, a read whose credentials expired mid-run', async () => {
    const result = await readQueueFailingWith(
      awsError('ExpiredTokenException', 'The security token included in the request is expired'),
    );
    expect(result).toMatchObject({ status: 'cannot-check' });
  });

  it('cannot check, rather than fail, a read AWS answered with a 5xx', async () => {
    const result = await readQueueFailingWith(
      awsError('InternalError', 'We encountered an internal error', 500),
    );
    expect(result).toMatchObject({ status: 'cannot-check' });
  });

  it('cannot check, rather than fail, a read the network dropped', async () => {
    const result = await readQueueFailingWith(
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    );
    expect(result).toMatchObject({ status: 'cannot-check' });
  });
});
