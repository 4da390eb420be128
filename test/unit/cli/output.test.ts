// What the CLI prints of a sender's bytes (deliveries show --reveal, dlq show --payload) cannot drive the
// operator's terminal: escape sequences are shown, not sent.
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../../cli/output';

describe('terminalSafe', () => {
  it('shows ESC, BEL, CSI and other control characters as escapes', () => {
    const hostile = '\u001b]0;PWNED\u0007\u001b[2J\u009b31m\u007f\u0000';
    const shown = terminalSafe(hostile);
    expect(shown).toBe('\\x1b]0;PWNED\\x07\\x1b[2J\\u009b31m\\x7f\\x00');
    expect(
      [...shown].every((c) => c.charCodeAt(0) >= 0x20 && (c.charCodeAt(0) < 0x7f || c.charCodeAt(0) > 0x9f)),
    ).toBe(true);
  });

  it('keeps newlines, tabs and the rest of the text as they are', () => {
    expect(terminalSafe('a\tb\nçé ✓ "q"')).toBe('a\tb\nçé ✓ "q"');
  });
});
