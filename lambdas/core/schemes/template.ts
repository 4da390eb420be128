// Signed-content templates: `{body}`, `{timestamp}` and `{id}` among literal text. The HMAC engine
// (generic-hmac.ts) and the config check both read templates here, so they agree on what one means.

export type TemplateField = 'body' | 'timestamp' | 'id';
export type TemplatePart = string | { readonly field: TemplateField };

const PLACEHOLDER = /\{(body|timestamp|id)\}/g;

/** Splits a template into literal text and placeholders; other braces are literal text. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (match.index > last) parts.push(template.slice(last, match.index));
    parts.push({ field: match[1] as TemplateField });
    last = match.index + match[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}

// What a field's value can contain: an id is printable ASCII without `.` or `,` (parseDeliveryId), a timestamp
// digits (parseUnixSeconds), a body anything.
const CAN_HOLD: Readonly<Record<TemplateField, (char: string) => boolean>> = {
  id: (char) => char >= '!' && char <= '~' && char !== '.' && char !== ',',
  timestamp: (char) => char >= '0' && char <= '9',
  body: () => true,
};

export interface AmbiguousBoundary {
  readonly left: TemplateField;
  readonly right: TemplateField;
  /** The literal text between them: empty when they are side by side. */
  readonly between: string;
}

/**
 * Two placeholders whose boundary the signed bytes do not fix: side by side (`{id}{body}`), or apart only
 * by characters both can contain (`{id}-{body}`: id `a-b` with body `c` signs the same bytes as id `a`
 * with body `b-c`). Bytes could then move from one field to the other under the same MAC, and a replay
 * get a new dedup key or a changed body. A character that one of the two cannot contain fixes it.
 */
export function ambiguousBoundary(parts: readonly TemplatePart[]): AmbiguousBoundary | undefined {
  for (let i = 0; i < parts.length; i++) {
    const left = parts[i];
    if (left === undefined || typeof left === 'string') continue;
    const next = parts[i + 1];
    const between = typeof next === 'string' ? next : '';
    const right = typeof next === 'string' ? parts[i + 2] : next;
    if (right === undefined || typeof right === 'string') continue;
    const fixed = [...between].some((char) => !CAN_HOLD[left.field](char) || !CAN_HOLD[right.field](char));
    if (!fixed) return { left: left.field, right: right.field, between };
  }
  return undefined;
}
