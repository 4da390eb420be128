// Recognises one lifecycle transition among the UpdateItem calls a test watches. The adapters render every
// name and value as a placeholder (adapters/dynamo-expression.ts), so a fault is matched on what the
// update writes, not on its text.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** Whether the update SETs `attribute` (to `value`, when given). */
export function setsTo(input: Record<string, unknown>, attribute: string, value?: string): boolean {
  const update = typeof input.UpdateExpression === 'string' ? input.UpdateExpression : '';
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, AttributeValue>;
  const setPart = update.split(/\s(?:REMOVE|ADD)\s/)[0] ?? '';
  if (!setPart.startsWith('SET ')) return false;
  const placeholders = Object.entries(names).flatMap(([placeholder, name]) =>
    name === attribute ? [placeholder] : [],
  );
  return placeholders.some((placeholder) => {
    const assignment = new RegExp(`(?:^SET |, )${placeholder} = (:v\\d+)`).exec(setPart);
    if (!assignment) return false;
    return value === undefined || values[assignment[1] as string]?.S === value;
  });
}

/** The processor's lease (it alone records the message it was taken for). */
export const isLease = (input: Record<string, unknown>) => setsTo(input, 'leaseMessageId');
export const isProcessedMark = (input: Record<string, unknown>) => setsTo(input, 'status', 'processed');
export const isFailedMark = (input: Record<string, unknown>) => setsTo(input, 'status', 'failed');
export const isDeadLetterMark = (input: Record<string, unknown>) => setsTo(input, 'deadLetterMessageId');
export const isReplayMark = (input: Record<string, unknown>) => setsTo(input, 'replayToken');
