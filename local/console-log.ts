// Local mode's output: one readable line per delivery and per processed event, instead of JSON logs.
import pc from 'picocolors';
import type { LogAttributes, LogSink } from '../lambdas/core/telemetry';
import { terminalText } from '../lambdas/core/terminal-text';

function statusColour(status: number): (text: string) => string {
  if (status < 300) return pc.green;
  if (status < 500) return pc.yellow;
  return pc.red;
}

/**
 * A value as one line of text that is safe on a terminal (core/terminal-text.ts; newlines escaped too).
 * Every field of a line goes through it, since any of them may come from a request or a handler.
 */
export function printable(value: unknown): string {
  return terminalText(String(value ?? '-'));
}

function short(value: unknown, length = 16): string {
  const text = printable(value);
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/**
 * A delivery given up before its last receive stays on the queue until SQS has received it as often as the
 * redrive policy says; the processor hands it on each time without a line. Said once, on the give-up.
 */
function untilMoved(a: LogAttributes): string {
  if (a.dlqAtReceive === undefined || a.receiveCount === undefined) return '';
  if (Number(a.receiveCount) >= Number(a.dlqAtReceive)) return '';
  return pc.dim(
    ` (given up at receive ${printable(a.receiveCount)}; SQS moves it to the DLQ after receive ${printable(a.dlqAtReceive)})`,
  );
}

/** Marks local mode's own lines in the processor's log, apart from what handlers log with ctx.log. */
export const LOCAL_MODE_COMPONENT = 'local-mode';

export function consoleLogger(write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): {
  verify: LogSink;
  process: LogSink;
  forward: LogSink;
} {
  const time = () => pc.dim(new Date().toISOString().slice(11, 23));
  const verifyLine = (_level: string) => (message: string, a: LogAttributes) => {
    const status = Number(a.status ?? 0);
    const detail = a.reason ?? a.handshake;
    const outcome = printable(detail ? `${a.outcome} ${detail}` : (a.outcome ?? message));
    write(
      `${time()} ${pc.bold('deliver')} ${statusColour(status)(String(status || '---'))} ${printable(a.provider ?? '?').padEnd(17)} ` +
        `${outcome.padEnd(28)} ${pc.dim(`key=${short(a.dedupKey)} type=${printable(a.eventType)} ${printable(a.bytes ?? 0)}B ${printable(a.durationMs ?? '?')}ms`)}`,
    );
  };
  const processLine = (level: string) => (message: string, a: LogAttributes) => {
    if (a.component === LOCAL_MODE_COMPONENT) {
      // Local mode's own line (messages lost on exit): how many, and why.
      const count = a.messages === undefined ? '' : ` (${printable(a.messages)})`;
      const why = a.reason === undefined ? '' : `: ${printable(a.reason)}`;
      write(`${time()} ${pc.bold('process')} ${pc.yellow(printable(message))}${count}${why}`);
      return;
    }
    if (a.outcome === undefined) {
      // A user handler's own line (ctx.log).
      write(`${time()} ${pc.bold('handler')} ${printable(message)}`);
      return;
    }
    const colour = level === 'info' ? pc.cyan : pc.yellow;
    const detail = a.errorCode
      ? ` ${printable(a.errorCode)}${a.delaySeconds === undefined ? '' : ` retry in ${printable(a.delaySeconds)}s`}`
      : '';
    write(
      `${time()} ${pc.bold('process')} ${colour(printable(a.outcome))}${detail} ${printable(a.provider ?? '?')} ` +
        pc.dim(`key=${short(a.dedupKey)} type=${printable(a.eventType)}`) +
        untilMoved(a),
    );
  };
  const forwardLine = (level: string) => (message: string, a: LogAttributes) => {
    if (a.outcome === undefined) {
      // The forwarder's own lines (lost on exit, counts not written): what they name matters.
      const about = a.destination === undefined ? '' : ` -> ${printable(a.destination)}`;
      const count = a.messages === undefined ? '' : ` (${printable(a.messages)})`;
      write(`${time()} ${pc.bold('forward')} ${pc.yellow(printable(message))}${count}${about}`);
      return;
    }
    const colour = level === 'info' ? pc.green : pc.yellow;
    const answer = a.status === undefined ? '' : ` ${printable(a.status)}`;
    const detail = a.errorCode
      ? ` ${printable(a.errorCode)}${a.delaySeconds === undefined ? '' : ` retry in ${printable(a.delaySeconds)}s`}`
      : '';
    write(
      `${time()} ${pc.bold('forward')} ${colour(printable(a.outcome))}${answer}${detail} -> ${printable(a.destination ?? '?')} ` +
        pc.dim(
          `${printable(a.provider ?? '?')} key=${short(a.dedupKey)} attempt=${printable(a.attempt ?? '-')}`,
        ),
    );
  };
  return {
    verify: { info: verifyLine('info'), warn: verifyLine('warn'), error: verifyLine('error') },
    process: { info: processLine('info'), warn: processLine('warn'), error: processLine('error') },
    forward: { info: forwardLine('info'), warn: forwardLine('warn'), error: forwardLine('error') },
  };
}
