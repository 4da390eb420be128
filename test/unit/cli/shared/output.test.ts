// What the CLI prints of a sender's bytes (deliveries show --reveal, dlq show --payload) cannot drive the
// operator's terminal: escape sequences are shown, not sent; and a key in a hint to paste is one shell word.
import { describe, expect, it } from 'vitest';
import {
  describeError,
  displayUrl,
  formatTime,
  jsonText,
  shellWord,
  terminalSafe,
} from '../../../../cli/shared/output';

describe('terminalSafe', () => {
  it('shows ESC, BEL, CSI and other control characters as escapes', () => {
    const hostile = '\u001b]0;PWNED\u0007\u001b[2J\u009b31m\u007f\u0000';
    const shown = terminalSafe(hostile);
    expect(shown).toBe('\\u001b]0;PWNED\\u0007\\u001b[2J\\u009b31m\\u007f\\u0000');
    expect(
      [...shown].every((c) => c.charCodeAt(0) >= 0x20 && (c.charCodeAt(0) < 0x7f || c.charCodeAt(0) > 0x9f)),
    ).toBe(true);
  });

  it('keeps newlines, tabs and the rest of the text as they are', () => {
    expect(terminalSafe('a\tb\nçé ✓ "q"')).toBe('a\tb\nçé ✓ "q"');
  });

  it('shows the bidirectional controls as escapes, so a planted value cannot reorder what is printed', () => {
    const controls = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
    expect(terminalSafe(`a${controls}b`)).toBe(
      'a\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061cb',
    );
  });
});

describe('formatTime', () => {
  const now = Date.parse('2026-12-01T10:00:00.000Z');
  it('says how long ago a past time was, and how soon a time still to come is', () => {
    expect(formatTime('2026-12-01T09:55:00.000Z', now)).toContain('(5m ago)');
    expect(formatTime('2026-12-01T10:05:00.000Z', now)).toContain('(in 5m)');
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

describe('displayUrl', () => {
  it('keeps a userinfo password and the query string out of what it prints', () => {
    expect(displayUrl('https://user:s3cret@hooks.example.com/in?token=abc&x=1')).toBe(
      'https://***@hooks.example.com/in?…',
    );
    expect(displayUrl('https://hooks.example.com/in')).toBe('https://hooks.example.com/in');
  });
});

describe('jsonText', () => {
  it('parses back to the same value, with nothing in it a terminal acts on', () => {
    const value = { eventType: 'push\u009b2J\u202e\u2028x', key: 'k\u001b]0;t\u0007', n: 1 };
    const text = jsonText(value);
    expect(JSON.parse(text)).toEqual(value);
    const acted = [...text].filter((c) => {
      const code = c.charCodeAt(0);
      return (
        (code < 0x20 && c !== '\n') || (code >= 0x7f && code <= 0x9f) || (code >= 0x2028 && code <= 0x202e)
      );
    });
    expect(acted).toEqual([]);
  });
});

describe('describeError', () => {
  it('names a thrown value that cannot be made text, instead of throwing itself', () => {
    expect(describeError(Object.create(null))).toBe('an error with no text');
  });

  it('keeps a message on one line and escapes what a server may have put in it', () => {
    expect(describeError(new Error('bad\n answer \u001b[2J'))).toBe('bad answer \\u001b[2J');
  });
});
