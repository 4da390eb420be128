// The console's reveal and replay, through operations/replay-deliveries.ts: the same functions
// `deliveries show --reveal` and `deliveries replay` use, with the operator's identity.
import {
  openReplayTarget,
  type ReplayTarget,
  replayOne,
  replayRefusalMessage,
  whoAmI,
} from '../operations/replay-deliveries';
import type { Target } from '../shared/target-types';
import { replayDestinations } from './replay-destinations';

export type ReplayAnswer =
  | { kind: 'replayed'; messageId: string; destinations: string[] }
  | { kind: 'refused'; reason: string; message: string };

/** Replays for one console launch: the target is opened and the operator named once. */
export function replayer(target: Target): (provider: string, dedupKey: string) => Promise<ReplayAnswer> {
  let opened: Promise<{ replayTarget: ReplayTarget; by: string | undefined }> | undefined;
  return async (provider, dedupKey) => {
    opened ??= Promise.all([openReplayTarget(target), whoAmI(target)]).then(([replayTarget, by]) => ({
      replayTarget,
      by,
    }));
    const { replayTarget, by } = await opened;
    const outcome = await replayOne(replayTarget, provider, dedupKey, by === undefined ? {} : { by });
    if (outcome.kind === 'replayed')
      return {
        kind: 'replayed',
        messageId: outcome.messageId,
        destinations: replayDestinations(target.config, outcome.record),
      };
    if (outcome.kind === 'refused')
      return {
        kind: 'refused',
        reason: outcome.reason,
        message: replayRefusalMessage(outcome.reason, outcome.record),
      };
    return { kind: 'refused', reason: 'dry_run', message: 'a dry run sends nothing' };
  };
}
