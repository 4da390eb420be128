// What the CLI prints of a sender's bytes (deliveries show --reveal, dlq show --payload) cannot drive the
// operator's terminal: escape sequences are shown, not sent; and a key in a hint to paste is one shell word.
import { describe, expect, it } from 'vitest';
import { shellWord, terminalSafe } from '../../../../cli/shared/output';

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

describe('shellWord', () => {
  it('leaves a plain key as it is', () => {
    expect(shellWord('evt_3PqR8e2eZvKYlo2C0x1y')).toBe('evt_3PqR8e2eZvKYlo2C0x1y');
  });

  it('quotes a key a shell would act on, quotes inside included', () => {
    expect(shellWord('msg_"><svg/onload=alert(7)>')).toBe(`'msg_"><svg/onload=alert(7)>'`);
    expect(shellWord("a'b;rm -rf ~")).toBe(`'a'\\''b;rm -rf ~'`);
  });
});
