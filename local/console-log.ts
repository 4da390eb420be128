// Local mode's output: one readable line per delivery and per processed event, instead of JSON logs.
import pc from 'picocolors';
import type { LogAttributes, LogSink } from '../lambdas/core/telemetry';

function statusColour(status: number): (text: string) => string {
  if (status < 300) return pc.green;
  if (status < 500) return pc.yellow;
  return pc.red;
}

function short(value: unknown, length = 16): string {
  const text = String(value ?? '-');
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

export function consoleLogger(write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): {
  verify: LogSink;
  process: LogSink;
} {
  const time = () => pc.dim(new Date().toISOString().slice(11, 23));
  const verifyLine = (_level: string) => (message: string, a: LogAttributes) => {
    const status = Number(a.status ?? 0);
    const detail = a.reason ?? a.handshake;
    const outcome = detail ? `${a.outcome} ${detail}` : String(a.outcome ?? message);
    write(
      `${time()} ${pc.bold('deliver')} ${statusColour(status)(String(status || '---'))} ${String(a.provider ?? '?').padEnd(17)} ` +
        `${outcome.padEnd(28)} ${pc.dim(`key=${short(a.dedupKey)} type=${a.eventType ?? '-'} ${a.bytes ?? 0}B ${a.durationMs ?? '?'}ms`)}`,
    );
  };
  const processLine = (level: string) => (message: string, a: LogAttributes) => {
    if (a.outcome === undefined) {
      // A user handler's own line (ctx.log).
      write(`${time()} ${pc.bold('handler')} ${message}`);
      return;
    }
    const colour = level === 'info' ? pc.cyan : pc.yellow;
    const detail = a.errorCode
      ? ` ${a.errorCode}${a.delaySeconds === undefined ? '' : ` retry in ${a.delaySeconds}s`}`
      : '';
    write(
      `${time()} ${pc.bold('process')} ${colour(String(a.outcome))}${detail} ${String(a.provider ?? '?')} ` +
        pc.dim(`key=${short(a.dedupKey)} type=${a.eventType ?? '-'}`),
    );
  };
  return {
    verify: { info: verifyLine('info'), warn: verifyLine('warn'), error: verifyLine('error') },
    process: { info: processLine('info'), warn: processLine('warn'), error: processLine('error') },
  };
}
