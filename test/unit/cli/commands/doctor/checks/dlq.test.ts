// The DLQ items: what the main queue's redrive policy and the DLQ's allow policy mean for a redrive, and
// the move-task check, which lists tasks (SQS has no dry run) and says the start itself was not tried.
import { describe, expect, it } from 'vitest';
import { checkDlq, redriveProblem } from '../../../../../../cli/commands/doctor/checks/dlq';
import { accessDenied, DLQ_ARN, fakeContext, QUEUE_ARN } from '../fake-context';

const queues = { queueArn: QUEUE_ARN, dlqArn: DLQ_ARN };
const redrivePolicy = JSON.stringify({ deadLetterTargetArn: DLQ_ARN, maxReceiveCount: 12 });
const allow = (policy: object) => ({ redrivePolicy, redriveAllowPolicy: JSON.stringify(policy) });

describe('redriveProblem', () => {
  it('accepts an allow policy by queue that names the main queue, allowAll, or none (SQS default)', () => {
    expect(
      redriveProblem(allow({ redrivePermission: 'byQueue', sourceQueueArns: [QUEUE_ARN] }), queues),
    ).toBeUndefined();
    expect(redriveProblem(allow({ redrivePermission: 'allowAll' }), queues)).toBeUndefined();
    expect(redriveProblem({ redrivePolicy }, queues)).toBeUndefined();
  });

  it('refuses denyAll and a by-queue policy that names another queue', () => {
    expect(redriveProblem(allow({ redrivePermission: 'denyAll' }), queues)).toContain('denyAll');
    expect(
      redriveProblem(
        allow({ redrivePermission: 'byQueue', sourceQueueArns: ['arn:aws:sqs:eu-west-1:1:other'] }),
        queues,
      ),
    ).toContain(`does not name ${QUEUE_ARN}`);
  });

  it('refuses a main queue that dead-letters elsewhere or nowhere', () => {
    expect(redriveProblem({}, queues)).toContain('no redrive policy');
    expect(
      redriveProblem({ redrivePolicy: JSON.stringify({ deadLetterTargetArn: 'arn:aws:sqs:x:1:y' }) }, queues),
    ).toContain('not to');
  });
});

describe('checkDlq', () => {
  it('passes both items and says StartMessageMoveTask was not tried', async () => {
    const [policy, move] = await checkDlq(fakeContext(), [
      { id: 'outputs', title: 'o', status: 'pass', detail: '' },
    ]);
    expect(policy?.status).toBe('pass');
    expect(move?.status).toBe('pass');
    expect(move?.detail).toContain('Not started: SQS has no dry run for StartMessageMoveTask');
  });

  it('fails the move item when ListMessageMoveTasks is denied: `dlq redrive` would fail too', async () => {
    const ctx = fakeContext();
    ctx.redrive.latestMove = () => Promise.reject(accessDenied());
    const [, move] = await checkDlq(ctx, [{ id: 'outputs', title: 'o', status: 'pass', detail: '' }]);
    expect(move?.status).toBe('fail');
    expect(move?.fix).toContain('sqs:StartMessageMoveTask');
  });

  it('cannot check when the outputs failed', async () => {
    const results = await checkDlq(fakeContext(), [
      { id: 'outputs', title: 'the outputs', status: 'fail', detail: '' },
    ]);
    expect(results.map((r) => r.status)).toEqual(['cannot-check', 'cannot-check']);
    expect(results[0]?.detail).toBe('needs "the outputs", which failed');
  });
});
