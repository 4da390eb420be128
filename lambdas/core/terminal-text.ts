// Text a sender or a record chose, made safe to print on an operator's terminal. One rule for the CLI's
// tables and local mode's log: C0 and C1 controls (ESC, and U+009B, the one-character CSI), DEL, the
// bidirectional marks, overrides and isolates, and the Unicode line and paragraph separators are written
// as `\uXXXX` escapes. Each could retitle, clear or recolour the terminal, move its cursor, or make a line
// read differently from what it holds. So are the characters that print as nothing (soft hyphen, zero
// width space, word joiner, byte order mark), so two values that print alike are told apart; the zero
// width joiner and non-joiner only after ASCII or at the start, since after an emoji or a letter of a
// script that uses them they are part of what is written (a family emoji, a Persian word).

const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|(?<![^\u0000-\u007f])[\u200c\u200d]/g;
// The same, but newline and tab are layout a multi-line value (a payload, a table cell) may keep.
const UNSAFE_BUT_LINES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|(?<![^\u0000-\u007f])[\u200c\u200d]/g;

const asEscape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with every unsafe character escaped; `keepLines` leaves newline and tab as they are. */
export function terminalText(text: string, options: { keepLines?: boolean } = {}): string {
  return text.replace(options.keepLines ? UNSAFE_BUT_LINES : UNSAFE, asEscape);
}
