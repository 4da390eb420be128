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
  const tell = (count: number, entry: GuardEntry) =>
    log.warn('emulator refused a request', {
      component: LOCAL_MODE_COMPONENT,
      messages: count,
      reason: `${entry.reason ?? 'refused'} at ${entry.emulator}: a web page or another process on this machine tried it without this instance's key`,
    });
  let lastMs = Number.NEGATIVE_INFINITY;
  let held = 0;
  let latest: GuardEntry | undefined;
  let timer: NodeJS.Timeout | undefined;
  return (entry) => {
    const now = nowMs();
    if (timer === undefined && now - lastMs >= intervalMs) {
      lastMs = now;
      tell(1, entry);
      return;
    }
    // Inside the interval: counted, and told when it ends, whether or not anything else is refused.
    held++;
    latest = entry;
    if (timer !== undefined) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        lastMs = nowMs();
        if (latest !== undefined) tell(held, latest);
        held = 0;
      },
      Math.max(0, intervalMs - (now - lastMs)),
    );
    // A pending line never keeps local mode from exiting.
    timer.unref();
  };
}
