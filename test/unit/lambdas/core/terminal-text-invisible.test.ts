// What reaches a terminal shows every character a reader would otherwise not see, not only the controls.
import { describe, expect, it } from 'vitest';
import { terminalText } from '../../../../lambdas/core/terminal-text';

describe('terminalText: invisible characters', () => {
  it.each(['200b', '200c', '200d', '2060', 'feff', '00ad'])(
    'escapes U+%s so two event types that print alike are told apart',
    (code) => {
      const char = String.fromCodePoint(Number.parseInt(code, 16));
      expect(terminalText(`ping${char}`)).not.toBe(`ping${char}`);
    },
  );
});
