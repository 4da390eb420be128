// A schema mismatch is described by field paths and zod issue codes only: what the record, the log and the
// CLI show must never carry a value from the body, not even a z.record key (payload data).
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { describeSchemaIssues, SCHEMA_DETAIL_MAX_CHARS } from '../../../../lambdas/core/schema-issues';

function detailOf(schema: z.ZodType, body: unknown): string {
  const parsed = schema.safeParse(body);
  if (parsed.success) throw new Error('expected a mismatch');
  return describeSchemaIssues(schema, parsed.error.issues);
}

const SECRET_VALUE = 'ada.lovelace@example.com';

describe('describeSchemaIssues', () => {
  it('names each failing path with its issue code, nested objects, arrays and enums alike', () => {
    const schema = z.object({
      type: z.enum(['invoice.paid']),
      data: z.object({
        object: z.object({ amount: z.number() }),
        lines: z.array(z.object({ id: z.string() })),
      }),
    });
    const detail = detailOf(schema, {
      type: SECRET_VALUE,
      data: { object: { amount: SECRET_VALUE }, lines: [{ id: 'ok' }, { id: 42 }] },
    });
    expect(detail).toBe('type invalid_value; data.object.amount invalid_type; data.lines.1.id invalid_type');
  });

  it('never carries a value: not the input, not a record key, not an unexpected key', () => {
    const schema = z.object({
      customers: z.record(z.string(), z.object({ plan: z.literal('pro') })),
      meta: z.strictObject({ source: z.string() }),
      note: z.string().max(3),
    });
    const detail = detailOf(schema, {
      customers: { [SECRET_VALUE]: { plan: SECRET_VALUE } },
      meta: { source: 'x', [SECRET_VALUE]: 1 },
      note: SECRET_VALUE,
    });
    expect(detail).toBe('customers.*.plan invalid_value; meta unrecognized_keys; note too_big');
    expect(detail).not.toContain('ada');
    expect(detail).not.toContain('example');
  });

  it('describes a body that is not the expected shape at all as (root)', () => {
    expect(detailOf(z.object({ a: z.string() }), SECRET_VALUE)).toBe('(root) invalid_type');
  });

  it(`stays within ${SCHEMA_DETAIL_MAX_CHARS} characters, cut at an issue and saying how many more`, () => {
    const shape = Object.fromEntries(
      Array.from({ length: 80 }, (_, i) => [`field_with_a_long_name_${i}`, z.string()]),
    );
    const detail = detailOf(z.object(shape), {});
    expect(detail.length).toBeLessThanOrEqual(SCHEMA_DETAIL_MAX_CHARS);
    expect(detail).toMatch(/^field_with_a_long_name_0 invalid_type; .*; \+\d+ more$/);
    const shown = detail.split('; ').filter((part) => !part.startsWith('+')).length;
    expect(shown + Number(/\+(\d+) more$/.exec(detail)?.[1])).toBe(80);
  });
});
