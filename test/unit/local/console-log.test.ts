// Every field of local mode's console lines is request- or handler-derived somewhere: none may reach the
// terminal with a control character in it, while ordinary text (and emoji) prints as it is.
import { describe, expect, it } from 'vitest';
import { consoleLogger, printable } from '../../../local/console-log';

const HOSTILE = 'a\u009b2J\u001b[2Jb\u0007\u0000\r\n\u007f\u0085\u202e\u2066\u2028\u200f';
// biome-ignore lint/suspicious/noControlCharactersInRegex: picocolors' SGR codes start with ESC.
const COLOURS = /\u001b\[\d+m/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

function lines(emit: (log: ReturnType<typeof consoleLogger>) => void): string[] {
  const out: string[] = [];
  emit(consoleLogger((line) => out.push(line)));
  return out.map((line) => line.replace(COLOURS, ''));
}

describe('printable', () => {
  it('writes each unsafe character as a \\u escape', () => {
    expect(printable(HOSTILE)).toBe(
      'a\\u009b2J\\u001b[2Jb\\u0007\\u0000\\u000d\\u000a\\u007f\\u0085\\u202e\\u2066\\u2028\\u200f',
    );
  });

  it('keeps ordinary text, non-ASCII letters and emoji', () => {
    expect(printable('Zoë 🚀 — 東京 👩🏽‍💻 orders/create')).toBe('Zoë 🚀 — 東京 👩🏽‍💻 orders/create');
  });
});

describe('consoleLogger', () => {
  const attributes = {
    outcome: HOSTILE,
    reason: HOSTILE,
    status: 400,
    provider: HOSTILE,
    dedupKey: HOSTILE,
    eventType: HOSTILE,
    bytes: HOSTILE,
    durationMs: HOSTILE,
    errorCode: HOSTILE,
    delaySeconds: HOSTILE,
    destination: HOSTILE,
    attempt: HOSTILE,
  };

  it.each(['info', 'warn', 'error'] as const)(
    'prints no control character in a %s line of any sink',
    (level) => {
      const printed = lines((log) => {
        log.verify[level]('delivery rejected', attributes);
        log.process[level]('event failed', attributes);
        log.process[level](`handler says ${HOSTILE}`, {});
        log.forward[level]('forward will be retried', attributes);
        log.forward[level](`forward ${HOSTILE}`, {});
      });
      expect(printed).toHaveLength(5);
      for (const line of printed) {
        expect(line).not.toMatch(UNSAFE);
        expect(line).toContain('\\u009b');
      }
    },
  );
});

describe('the forward line', () => {
  it('names the outcome, the answer, the destination and the attempt', () => {
    const [line] = lines((log) =>
      log.forward.warn('forward will be retried', {
        outcome: 'retry',
        status: 503,
        errorCode: 'http_503',
        delaySeconds: 2,
        destination: 'orders',
        provider: 'stripe',
        dedupKey: 'evt_1',
        attempt: 2,
      }),
    );
    expect(line).toMatch(/forward retry 503 http_503 retry in 2s -> orders stripe key=evt_1 attempt=2$/);
  });
});

describe("the forwarder's own lines", () => {
  it('name the destination and the count of what is lost on exit', () => {
    const [line] = lines((log) =>
      log.forward.warn('forwards lost on exit', { destination: 'orders', messages: 3, reason: 'x' }),
    );
    expect(line).toMatch(/forward forwards lost on exit \(3\) -> orders$/);
  });
});

describe("consoleLogger: local mode's own lines", () => {
  it('says how many queued messages were lost on exit, and why, as the processor, not as a handler', () => {
    const out = lines((log) =>
      log.process.warn('queued messages lost on exit', {
        component: 'local-mode',
        messages: 3,
        reason: 'the local SQS emulator keeps no state',
      }),
    );
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(
      / process queued messages lost on exit \(3\): the local SQS emulator keeps no state$/,
    );
  });
});

describe('the process line of a delivery given up early', () => {
  it('says once when SQS moves it, since the receives in between print nothing', () => {
    const log = consoleLogger(() => undefined);
    // The processor writes a draining receive at DEBUG; local mode's console has no DEBUG line.
    expect(log.process.debug).toBeUndefined();
    const [line] = lines((sinks) =>
      sinks.process.warn('event dead-lettered', {
        outcome: 'dead_lettered',
        errorCode: 'demo_permanent_failure',
        provider: 'standard-webhooks',
        dedupKey: 'msg_1',
        eventType: 'webhook-inbox.demo.permanent',
        receiveCount: 1,
        dlqAtReceive: 12,
      }),
    );
    expect(line).toMatch(
      /process dead_lettered demo_permanent_failure standard-webhooks key=msg_1 type=\S+ \(given up at receive 1; SQS moves it to the DLQ after receive 12\)$/,
    );
  });

  it('adds nothing when the last receive gave it up', () => {
    const [line] = lines((sinks) =>
      sinks.process.warn('event dead-lettered', {
        outcome: 'dead_lettered',
        errorCode: 'Error',
        provider: 'github',
        dedupKey: 'abc',
        eventType: 'push',
        receiveCount: 12,
        dlqAtReceive: 12,
      }),
    );
    expect(line).toMatch(/type=push$/);
  });
});
