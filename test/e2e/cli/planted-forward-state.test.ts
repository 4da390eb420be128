// `deliveries show` on a record whose destination history was planted (anyone who can write the table):
// the history's fields reach the terminal through the same escaping as every other field. Its last answer
// is a number when the forwarder writes it, but the record is read as it is found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalInbox } from '../../../local/local-inbox';
import { inboxRecord, writeRecords } from '../../support/inbox-records';
import { makeProject, runCli, startInstance } from './helpers';

const project = makeProject();
let inbox: LocalInbox;

beforeAll(async () => {
  inbox = await startInstance(project.dir);
  const record = {
    ...inboxRecord({
      provider: 'github',
      dedupKey: 'planted-forward',
      receivedMs: Date.now(),
      status: 'processed',
    }),
    'forward:crm': JSON.stringify({
      state: 'retrying',
      destination: 'crm',
      attempts: 2,
      lastStatus: '500\u001b]0;pwned\u0007\u202e',
      lastErrorCode: 'http_500',
      lastAttemptAt: new Date().toISOString(),
    }),
  };
  await writeRecords(inbox.clients.dynamodb, inbox.state.tableName, [record]);
}, 120_000);

afterAll(async () => {
  await inbox?.stop();
  project.remove();
}, 60_000);

describe('deliveries show: a planted destination history', () => {
  it('prints its last answer escaped, with no OSC, BEL or bidirectional control', async () => {
    const result = await runCli(project.dir, ['deliveries', 'show', 'github', 'planted-forward']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('crm');
    expect(result.stdout).not.toContain('\u001b]');
    expect(result.stdout).not.toContain('\u0007');
    expect(result.stdout).not.toContain('\u202e');
  }, 120_000);
});
