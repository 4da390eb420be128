// A light read of each resource the CLI's commands work on, with this machine's credentials: a missing
// permission shows here, not halfway through a redrive.
import { describeError } from '../../../shared/output';
import { isAccessDenied } from '../access-denied';
import { blockedBy, type CheckResult, cannotCheck, fail, pass } from '../checklist';
import type { DoctorContext, ResourceProbes } from '../ports';
import { isUnavailable } from '../unavailable';
import { OUTPUTS } from './outputs';

interface Probe {
  id: string;
  title: string;
  probe: keyof ResourceProbes;
  /** What a read needs, for the fix. */
  permission: string;
}

export const READ_TABLE = 'read:table';

const PROBES: readonly Probe[] = [
  {
    id: READ_TABLE,
    title: 'the CLI can read the inbox table',
    probe: 'table',
    permission: 'dynamodb:GetItem and dynamodb:Query on the table and its indexes',
  },
  {
    id: 'read:queue',
    title: 'the CLI can read the main queue',
    probe: 'queue',
    permission: 'sqs:GetQueueAttributes on the main queue',
  },
  {
    id: 'read:dlq',
    title: 'the CLI can read the dead-letter queue',
    probe: 'dlq',
    permission: 'sqs:GetQueueAttributes and sqs:ReceiveMessage on the dead-letter queue',
  },
  {
    id: 'read:bucket',
    title: 'the CLI can read the payload bucket',
    probe: 'bucket',
    permission: 's3:GetObject and s3:ListBucket on the payload bucket',
  },
];

export async function checkResources(
  ctx: DoctorContext,
  done: readonly CheckResult[],
): Promise<CheckResult[]> {
  const blocked = blockedBy(done, [OUTPUTS]);
  const results: CheckResult[] = [];
  for (const { id, title, probe, permission } of PROBES) {
    if (blocked !== undefined) {
      results.push(cannotCheck(id, title, blocked));
      continue;
    }
    try {
      await ctx.probes[probe]();
      results.push(pass(id, title, 'read'));
    } catch (error) {
      if (isUnavailable(error)) {
        results.push(cannotCheck(id, title, `AWS did not answer this time: ${describeError(error)}`));
        continue;
      }
      results.push(
        isAccessDenied(error)
          ? fail(
              id,
              title,
              `refused: ${describeError(error)}`,
              `grant this machine's credentials ${permission}`,
            )
          : fail(
              id,
              title,
              describeError(error),
              'check the resource still exists (deleted by hand?) and redeploy with `npx cdk deploy`',
            ),
      );
    }
  }
  return results;
}
