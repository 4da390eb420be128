// One rule for what reaches an operator's terminal, from the CLI's tables and local mode's log alike.
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../../../cli/shared/output';
import { terminalText } from '../../../../lambdas/core/terminal-text';
import { printable } from '../../../../local/console-log';

const HOSTILE = 'a\u001b]0;x\u0007\u009b2J\u202e\u2066\u200f\u061c\u2028\u2029\u0000\u007fb';

describe('terminalText', () => {
  it('escapes controls, bidi marks, overrides and isolates, and the line separators', () => {
    expect(terminalText(HOSTILE)).toBe(
      'a\\u001b]0;x\\u0007\\u009b2J\\u202e\\u2066\\u200f\\u061c\\u2028\\u2029\\u0000\\u007fb',
    );
  });

  it('keeps newline and tab only when asked', () => {
    expect(terminalText('a\nb\tc')).toBe('a\\u000ab\\u0009c');
    expect(terminalText('a\nb\tc\rd', { keepLines: true })).toBe('a\nb\tc\\u000dd');
  });

  it('is the rule the CLI and local mode both print with', () => {
    expect(terminalSafe(HOSTILE)).toBe(terminalText(HOSTILE, { keepLines: true }));
    expect(printable(HOSTILE)).toBe(terminalText(HOSTILE));
  });
});

describe('terminalText: joiners', () => {
  it('keeps a joiner inside an emoji sequence or a word of a script that uses it', () => {
    expect(terminalText('👩🏽‍💻 می‌خواهم')).toBe('👩🏽‍💻 می‌خواهم');
  });

  it('escapes a joiner after ASCII or at the start, where it only hides', () => {
    expect(terminalText('\u200dpi\u200cng')).toBe('\\u200dpi\\u200cng');
  });
});
