// What the CLI prints: tables for people, JSON for scripts, and one-line errors with the right exit code
// (2 for a usage mistake, 1 for a failure at run time). Kept light: every command loads it at start-up.
import Table from 'cli-table3';
import pc from 'picocolors';
import { terminalText } from '../../lambdas/core/terminal-text';

/** `refused`: the command was understood and the target answered, but would not (a replay in flight). */
export const EXIT = { ok: 0, failure: 1, usage: 2, refused: 3 } as const;

/** The command line was wrong (unknown provider, bad value, refused without a confirmation flag): exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Something failed while running (no local instance, AWS refused, a check failed): exit 1. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    /** What to do about it, printed after the message on the same line. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

// An error's words on one line, escaped: a message may quote what a server or a sender sent.
const oneLine = (text: string) => terminalText(text.replace(/\s*\n\s*/g, ' ').trim());

/** A thrown value as text; one that cannot be made text (an object without a prototype) is named so. */
function textOf(value: unknown): string {
  try {
    return String(value);
  } catch {
    return 'an error with no text';
  }
}

/** The message of an error and of its causes, on one line, without a stack trace. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 4; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      const text = oneLine(textOf(current.message || current.name));
      parts.push(typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text);
      current = current.cause;
    } else {
      parts.push(oneLine(textOf(current)));
      current = undefined;
    }
  }
  return parts.filter((part, index) => part && parts.indexOf(part) === index).join(': ');
}

/** Prints an error as `webhook-inbox: ...` and returns the exit code it deserves. */
export function reportError(error: unknown): number {
  if (error instanceof UsageError) {
    process.stderr.write(`webhook-inbox: ${oneLine(error.message)}\n`);
    return EXIT.usage;
  }
  if (error instanceof CliError) {
    const hint = error.hint ? ` (${oneLine(error.hint)})` : '';
    process.stderr.write(`webhook-inbox: ${oneLine(error.message)}${hint}\n`);
    return EXIT.failure;
  }
  if (error instanceof Error && error.name === 'ConfigError') {
    process.stderr.write(`webhook-inbox: invalid configuration: ${oneLine(error.message)}\n`);
    return EXIT.failure;
  }
  process.stderr.write(`webhook-inbox: ${describeError(error)}\n`);
  return EXIT.failure;
}

/**
 * The value as JSON, with every character terminalText escapes written as a `\uXXXX` escape: the same
 * document for a parser, and nothing in it a terminal acts on (JSON.stringify leaves DEL, the C1 controls,
 * the bidirectional controls and the line separators as they are).
 */
export function jsonText(value: unknown): string {
  return terminalText(JSON.stringify(value, null, 2) ?? 'null', { keepLines: true });
}

export function printJson(value: unknown): void {
  process.stdout.write(`${jsonText(value)}\n`);
}

export function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** Borders around the table and under the head, none between rows. */
const NO_ROW_LINES = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

/**
 * Text a sender or a record chose, made safe to print on a terminal (core/terminal-text.ts): its newlines
 * and tabs kept, every character that could retitle, clear, recolour or reorder the terminal escaped.
 */
export function terminalSafe(text: string): string {
  return terminalText(text, { keepLines: true });
}

/**
 * A value for one cell or one line (a key, a type, a code): terminalSafe, and its newlines and tabs escaped
 * too, so a planted value cannot print a second line that reads as a row the inbox never held.
 */
export function singleLine(text: string): string {
  return terminalText(text);
}

/**
 * A destination URL as the CLI prints it: a password or token in its userinfo or query string stays out
 * of the terminal (and its scrollback and screenshots): `https://***@host/path?…`.
 */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL the forwarder could call, but it may still carry a password or a token: mask the same parts.
    return singleLine(
      url
        .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@')
        .replace(/[?#].*$/s, (rest) => (rest.startsWith('?') ? '?…' : '')),
    );
  }
  const userinfo = parsed.username !== '' || parsed.password !== '' ? '***@' : '';
  const query = parsed.search === '' ? '' : '?…';
  return singleLine(`${parsed.protocol}//${userinfo}${parsed.host}${parsed.pathname}${query}`);
}

/** Text this program styled (colours): printed as it is, where every other value is made terminalSafe. */
export interface Styled {
  styled: string;
}

export const styled = (text: string): Styled => ({ styled: text });

/**
 * A word for a command line the operator may paste: as it is when it holds only characters no shell
 * treats specially, else single-quoted. Dedup keys come from senders and may hold any printable ASCII.
 */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A bordered table; `head` is printed bold. Cells are strings already (colour them before). */
export function table(head: string[], rows: string[][]): string {
  const t = new Table({
    head: head.map((h) => pc.bold(h)),
    style: { head: [], border: [] },
    chars: NO_ROW_LINES,
  });
  for (const row of rows) t.push(row);
  return t.toString();
}

/** Label and value lines; values are made singleLine unless this program styled them. */
export function details(pairs: readonly (readonly [string, string | number | undefined | Styled])[]): string {
  const t = new Table({ style: { head: [], border: [] }, chars: NO_ROW_LINES });
  for (const [label, value] of pairs) {
    t.push([pc.dim(label), typeof value === 'object' ? value.styled : dash(value)]);
  }
  return t.toString();
}

/** A value from a record or a sender for a table cell: made singleLine, or a dim dash when empty. */
export function dash(value: string | number | undefined): string {
  return value === undefined || value === '' ? pc.dim('-') : singleLine(String(value));
}

/** Cut to `length` characters, after making it singleLine (an escape is never cut in half). */
export function truncate(text: string, length: number): string {
  const safe = singleLine(text);
  return safe.length > length ? `${safe.slice(0, length - 1)}…` : safe;
}

export function statusColour(status: number): (text: string) => string {
  if (status >= 200 && status < 300) return pc.green;
  if (status >= 400 && status < 500) return pc.yellow;
  return pc.red;
}

/** Each inbox status's colour: the CLI's tables and the console's badges both read it. */
export const INBOX_COLOURS: Record<string, 'green' | 'cyan' | 'dim' | 'yellow' | 'red'> = {
  processed: 'green',
  enqueued: 'cyan',
  processing: 'cyan',
  claimed: 'dim',
  failed: 'yellow',
  'dead-lettered': 'red',
};

export function inboxStatus(status: string): string {
  const colour = INBOX_COLOURS[status];
  return colour === undefined ? singleLine(status) : pc[colour](status);
}

/** `3s`, `4m`, `2h 5m`, `3d 4h`: how long ago, for people. */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours}h ${minutes % 60}m` : `${hours}h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days}d ${hours % 24}h` : `${days}d`;
}

/** An ISO time as `2026-11-30 12:00:05` (UTC) plus its age. */
export function formatTime(iso: string | undefined, nowMs = Date.now()): string {
  if (!iso) return pc.dim('-');
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return singleLine(iso);
  // A time still to come (a destination's next attempt) is "in 5m", not "0s ago".
  const relative = ms > nowMs ? `in ${formatAge(ms - nowMs)}` : `${formatAge(nowMs - ms)} ago`;
  return `${singleLine(iso.slice(0, 19).replace('T', ' '))} ${pc.dim(`(${relative})`)}`;
}

const DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30s`, `15m`, `2h`, `7d` in milliseconds, or undefined if the text is not one. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/**
 * A secret shown without giving it away: its provider prefix (`whsec_`, `shpss_`, ...) and last four
 * characters. Short secrets show nothing but their length.
 */
export function maskSecret(secret: string): string {
  const prefix = /^([a-z]+_)+/.exec(secret)?.[0] ?? '';
  const rest = secret.slice(prefix.length);
  if (rest.length < 12) return `${prefix}${'*'.repeat(8)} (${secret.length} chars)`;
  return `${prefix}${'*'.repeat(8)}${rest.slice(-4)} (${secret.length} chars)`;
}

/**
 * Secrets as every command lists them, in tables and in --json alike (`secrets: [{label, secret}]` beside
 * `revealed`): newest first, labelled `current`, `previous`, `older`; each masked unless revealed.
 */
export function listedSecrets(
  secrets: readonly string[],
  reveal: boolean,
): { label: string; secret: string }[] {
  return secrets.map((secret, index) => ({
    label: ['current', 'previous'][index] ?? 'older',
    secret: reveal ? secret : maskSecret(secret),
  }));
}
