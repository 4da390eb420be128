// Realistic webhook bodies of an exact size: an event envelope with `id` and `type`, invoice line items,
// and a free-text field that pads the JSON to the requested byte count; and such a body signed as a
// provider's sender signs it.
import type { Scheme, SignInput } from '../../lambdas/core/schemes';

export const BODY_SIZES = [1024, 16 * 1024, 256 * 1024] as const;

const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore ' +
  'et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris. ';

function lineItem(n: number): Record<string, unknown> {
  const code = String(n).padStart(6, '0');
  return {
    id: `il_1P${code}Qx7Lm`,
    object: 'line_item',
    amount: 1000 + ((n * 7919) % 90_000),
    currency: 'usd',
    description: `Widget model ${code} (monthly)`,
    period: { start: 1_700_000_000 + n * 60, end: 1_702_592_000 + n * 60 },
    quantity: 1 + (n % 5),
    metadata: { sku: `SKU-${code}`, warehouse: n % 2 ? 'eu-west-1' : 'us-east-1' },
  };
}

/**
 * A JSON body of exactly `size` bytes (ASCII, so bytes = characters) with top-level `id` and `type`, and
 * any provider-specific top-level fields in `extra` (Paddle's `notification_id`, Linear's
 * `webhookTimestamp`) right after them.
 */
export function jsonBody(
  size: number,
  id: string,
  type: string,
  extra: Record<string, unknown> = {},
): Buffer {
  const lines: Record<string, unknown>[] = [];
  const event = {
    id,
    type,
    ...extra,
    object: 'event',
    api_version: '2024-06-20',
    created: 1_700_000_000,
    livemode: false,
    data: {
      object: {
        id: 'in_1P9xQx7LmKz3',
        object: 'invoice',
        customer: 'cus_Q2ZkPq1x9',
        currency: 'usd',
        status: 'paid',
        lines,
        notes: '',
      },
    },
  };
  // Lengths are tracked rather than re-serializing the whole event per item (256 KiB is ~1000 items).
  let length = JSON.stringify(event).length;
  for (;;) {
    const next = lineItem(lines.length);
    const added = JSON.stringify(next).length + (lines.length > 0 ? 1 : 0);
    if (length + added + 64 >= size) break;
    lines.push(next);
    length += added;
  }
  const missing = size - JSON.stringify(event).length;
  if (missing < 0) throw new RangeError(`jsonBody: ${size} bytes is too small for the envelope`);
  event.data.object.notes = LOREM.repeat(Math.ceil(missing / LOREM.length) + 1).slice(0, missing);
  const text = JSON.stringify(event);
  if (text.length !== size) throw new Error(`jsonBody: built ${text.length} bytes, wanted ${size}`);
  return Buffer.from(text, 'utf8');
}

export interface SignedDelivery {
  id: string;
  body: Buffer;
  /** Names lowercased: fetch would send a Content-Type of other case twice. */
  headers: Record<string, string>;
}

/** A `size`-byte body for delivery `id` (with a `timestamp` field), signed now by `scheme` as its sender would. */
export function signedDelivery(
  scheme: Scheme,
  input: { secret: string; id: string; size: number; eventType: string; options?: SignInput['options'] },
): SignedDelivery {
  const { id, eventType } = input;
  const body = jsonBody(input.size, id, eventType, { timestamp: new Date().toISOString() });
  const signed = scheme.sign({
    body,
    secret: input.secret,
    timestamp: Math.floor(Date.now() / 1000),
    id,
    eventType,
    options: input.options,
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(signed)) headers[name.toLowerCase()] = value;
  return { id, body, headers };
}
