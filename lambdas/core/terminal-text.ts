// Text a sender or a record chose, made safe to print on an operator's terminal. One rule for the CLI's
// tables and local mode's log: C0 and C1 controls (ESC, and U+009B, the one-character CSI), DEL, the
// bidirectional marks, overrides and isolates, and the Unicode line and paragraph separators are written
// as `\uXXXX` escapes. Each could retitle, clear or recolour the terminal, move its cursor, or make a line
// read differently from what it holds.

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
// The same, but newline and tab are layout a multi-line value (a payload, a table cell) may keep.
const UNSAFE_BUT_LINES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const asEscape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with every unsafe character escaped; `keepLines` leaves newline and tab as they are. */
export function terminalText(text: string, options: { keepLines?: boolean } = {}): string {
  return text.replace(options.keepLines ? UNSAFE_BUT_LINES : UNSAFE, asEscape);
}
