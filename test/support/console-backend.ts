// A stand-in for the console's backend (ConsoleOperations): one dead letter, and a list of the mutations
// and reveals it ran, so a test can prove a refused request never reached one.
import { groupDeadLetters } from '../../cli/console/console-operations';
import type { ConsoleBackend } from '../../cli/console/server';
import { InvalidCursorError } from '../../lambdas/adapters/dynamo-inbox-listing';
import type { InboxRecord } from '../../lambdas/core/inbox';

export const deadLetter: InboxRecord = {
  pk: 'mobazha#evt_1',
  provider: 'mobazha',
  dedupKey: 'evt_1',
  payloadSha256: 'ab'.repeat(32),
  status: 'dead-lettered',
  receivedAt: '2026-12-01T10:00:00.000Z',
  deadLetteredAt: '2026-12-01T10:00:01.000Z',
  attempts: 1,
  lastErrorCode: 'downstream_rejected',
  expiresAt: 2_000_000_000,
};

/** `calls` gets each mutation's name; `reveals` each payload read. */
export function fakeBackend(calls: string[], reveals: string[] = []): ConsoleBackend {
  const mutation = (name: string) => async () => {
    calls.push(name);
    return 'done';
  };
  return {
    target: { description: 'a stand-in', kind: 'local', config: { destinations: {} } },
    config: { providers: { mobazha: {} } },
    dlqName: 'webhook-inbox-dlq',
    deliveries: {
      page: async (query: { cursor?: string }) => {
        if (query.cursor === 'tampered') throw new InvalidCursorError('not a cursor of this listing');
        return { records: [deadLetter] };
      },
      get: async () => deadLetter,
    },
    dlqCounts: async () => ({ visible: 1, inFlight: 0, delayed: 0 }),
    deadLetterGroups: async () => groupDeadLetters([deadLetter]),
    providers: async () => [],
    reveal: async () => {
      reveals.push('reveal');
      return Buffer.from('{"secret":"payload"}');
    },
    redrive: mutation('redrive'),
    purge: mutation('purge'),
    rotate: mutation('rotate'),
    replay: async () => {
      calls.push('replay');
      return { kind: 'replayed', messageId: 'm-1' };
    },
  } as unknown as ConsoleBackend;
}
