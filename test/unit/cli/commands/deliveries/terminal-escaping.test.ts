// What `deliveries list` and `deliveries show` print of a record whose fields a sender (or anyone who can
// write the table) planted: terminal control sequences and bidirectional controls are shown escaped, never
// sent to the operator's terminal, where they could retitle it, clear it, or reorder what it shows.
import { describe, expect, it } from 'vitest';
import { listTable, showDetails } from '../../../../../cli/commands/deliveries/command';
import type { InboxRecord } from '../../../../../lambdas/core/inbox';

const OSC_TITLE = '\u001b]0;pwned\u0007';
const CLEAR = '\u001b[2J\u001b[H';
const RLO = '\u202e';
const ISOLATE = '\u2066';

const planted = {
  pk: `github#key${CLEAR}`,
  provider: `github${OSC_TITLE}`,
  dedupKey: `key${CLEAR}`,
  status: `processed${CLEAR}`,
  eventType: `push${OSC_TITLE}${CLEAR}`,
  deliveryId: `abc${RLO}gnp.exe${ISOLATE}`,
  lastErrorCode: `http_500${OSC_TITLE}`,
  lastErrorDetail: `field${RLO}`,
  messageId: `m${CLEAR}`,
  payloadSha256: 'a'.repeat(64),
  payloadRef: `payloads/${OSC_TITLE}`,
  lastReplayedBy: `arn${RLO}`,
  receivedAt: `2026-12-01${CLEAR}`,
  attempts: 1,
  expiresAt: 1_900_000_000,
} as unknown as InboxRecord;

/** Anything a terminal would act on: OSC, BEL, CSI other than colour, or a bidirectional control. */
function actionable(text: string): string[] {
  const found: string[] = [];
  if (text.includes('\u001b]')) found.push('OSC');
  if (text.includes('\u0007')) found.push('BEL');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  if (/\u001b\[(?![0-9;]*m)/.test(text)) found.push('CSI other than colour');
  if (/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/.test(text)) found.push('bidi control');
  return found;
}

describe('deliveries list and show: planted fields', () => {
  it('list prints the planted provider, event type, status, error, key and time escaped', () => {
    const out = listTable([planted]);
    expect(actionable(out)).toEqual([]);
    expect(out).toContain('push\\u001b]0;pwned\\u0007');
  });

  it('show prints every planted field escaped, the bidirectional controls included', () => {
    const out = showDetails(planted);
    expect(actionable(out)).toEqual([]);
    expect(out).toContain('abc\\u202egnp.exe\\u2066');
    expect(out).toContain('push\\u001b]0;pwned\\u0007\\u001b[2J');
    expect(out).toContain('http_500\\u001b]0;pwned\\u0007');
  });
});
