// What `dlq list` and `dlq redrive --dry-run` print of a DLQ message whose error code was planted (a
// message attribute, or the inbox record's last error code): escaped like every other field, never sent
// to the operator's terminal as control sequences or bidirectional controls.
import { describe, expect, it } from 'vitest';
import { type DlqEntry, entriesTable } from '../../../../cli/operations/dlq-entry';

const OSC_TITLE = '\u001b]0;pwned\u0007';
const RLO = '\u202e';

const planted: DlqEntry = {
  messageId: '16ffd182-d910-459a-bdf4-96db03499c0c',
  provider: 'github',
  eventType: 'push',
  dedupKey: 'key',
  errorCode: `handler_error${OSC_TITLE}${RLO}`,
  receiveCount: 1,
  payloadLocation: 'inline',
};

describe('dlq list table: a planted error code', () => {
  it('is printed escaped, with no OSC, BEL or bidirectional control', () => {
    const out = entriesTable([planted]);
    expect(out).not.toContain('\u001b]');
    expect(out).not.toContain('\u0007');
    expect(out).not.toContain(RLO);
    expect(out).toContain('handler_error\\u001b]0;pwned\\u0007\\u202e');
  });
});
