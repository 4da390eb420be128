import { describe, expect, it, vi } from 'vitest';
import type { LogAttributes } from '../../../lambdas/core/telemetry';
import type { GuardEntry } from '../../../local/emulators';
import { refusalWarnings } from '../../../local/refusal-warnings';

const refused = (reason: string): GuardEntry => ({
  emulator: 'fauxqs',
  outcome: 'refused',
  reason,
  method: 'POST',
  url: '/?\u001b]0;title\u0007',
});

function recorder() {
  const lines: [string, LogAttributes][] = [];
  const log = {
    info: () => undefined,
    error: () => undefined,
    warn: (message: string, attributes: LogAttributes) => void lines.push([message, attributes]),
  };
  return { lines, log };
}

describe('refusalWarnings', () => {
  it('warns at once, then once at the end of the interval with the count held since', () => {
    vi.useFakeTimers();
    try {
      const { lines, log } = recorder();
      const warn = refusalWarnings(log, { intervalMs: 10_000 });
      warn(refused('forbidden_origin'));
      for (let i = 0; i < 5; i++) {
        vi.advanceTimersByTime(1_000);
        warn(refused('forbidden_fetch_metadata'));
      }
      expect(lines).toHaveLength(1);
      vi.advanceTimersByTime(5_000);
      expect(lines.map(([message, a]) => [message, a.messages])).toEqual([
        ['emulator refused a request', 1],
        ['emulator refused a request', 5],
      ]);
      expect(String(lines[1]?.[1].reason)).toMatch(/^forbidden_fetch_metadata at fauxqs: /);
      // Nothing held: no further line.
      vi.advanceTimersByTime(60_000);
      expect(lines).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never repeats what the refused request carried: its URL is the sender text', () => {
    const { lines, log } = recorder();
    refusalWarnings(log)(refused('forbidden_origin'));
    expect(JSON.stringify(lines)).not.toContain('title');
  });
});

describe('refusalWarnings after a burst', () => {
  it('says how many a burst held once the interval is over, even when nothing more is refused', () => {
    vi.useFakeTimers();
    try {
      const { lines, log } = recorder();
      const warn = refusalWarnings(log, { intervalMs: 10_000 });
      // A page's scan and forge: one request after another within a second, then nothing.
      warn(refused('forbidden_fetch_metadata'));
      for (let i = 0; i < 5; i++) warn(refused('bad_signature'));
      vi.advanceTimersByTime(10_000);
      const told = lines.reduce((sum, [, attributes]) => sum + Number(attributes.messages), 0);
      expect(told).toBe(6);
    } finally {
      vi.useRealTimers();
    }
  });
});
