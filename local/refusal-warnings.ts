// Local mode's warning when the emulators' guard refuses a request: something on this machine, a web page
// in a browser or another process, tried to reach the emulators without this launch's key. A port scan
// sends many at once, so the warning is one line per interval, counting the refusals since the last line.
// It names the guard's own reason code and the emulator, never what the request carried: that text is the
// sender's, and would reach the operator's terminal.
import type { LogSink } from '../lambdas/core/telemetry';
import { LOCAL_MODE_COMPONENT } from './console-log';
import type { GuardEntry } from './emulators';

const INTERVAL_MS = 10_000;

export function refusalWarnings(
  log: LogSink,
  options: { nowMs?: () => number; intervalMs?: number } = {},
): (entry: GuardEntry) => void {
  const nowMs = options.nowMs ?? Date.now;
  const intervalMs = options.intervalMs ?? INTERVAL_MS;
  let lastMs = Number.NEGATIVE_INFINITY;
  let count = 0;
  return (entry) => {
    count++;
    const now = nowMs();
    if (now - lastMs < intervalMs) return;
    lastMs = now;
    log.warn('emulator refused a request', {
      component: LOCAL_MODE_COMPONENT,
      messages: count,
      reason: `${entry.reason ?? 'refused'} at ${entry.emulator}: a web page or another process on this machine tried it without this instance's key`,
    });
    count = 0;
  };
}
