// Message attributes as the pipeline sees them (a flat string map) and as SQS stores them.
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';

export function toMessageAttributes(
  attributes: Record<string, string>,
): Record<string, MessageAttributeValue> {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
  );
}

/** String attributes only: the pipeline writes no other kind, and binary ones have no string form. */
export function fromMessageAttributes(
  attributes: Record<string, MessageAttributeValue> | undefined,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value.StringValue !== undefined) flat[name] = value.StringValue;
  }
  return flat;
}
