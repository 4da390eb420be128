// The inbox record as a DynamoDB item. Every attribute is a string or a number, but for the archived body,
// a binary attribute (base64 on the record), and the attempt log, a list of strings, so a hand-written
// mapping is enough (@aws-sdk/util-dynamodb is not published in the client's 3.1164.0 line, and adding a second
// SDK version line for two conversions is not worth it).
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { LIST_ATTRIBUTE_NAMES } from '../../config/list-index';
import type { InboxRecord } from '../core/inbox';

export type Item = Record<string, AttributeValue>;

/** The attributes stored as DynamoDB numbers; every other attribute is a string. */
const NUMBER_ATTRIBUTES: ReadonlySet<string> = new Set([
  'leaseUntil',
  'leaseReceiveCount',
  'attempts',
  'expiresAt',
  'dedupUntil',
  'replays',
]);

/**
 * Stored as DynamoDB binary: the item's size counts the bytes, not their base64 (a third less on every
 * later write, each charged on the item's size).
 */
export const BINARY_ATTRIBUTES: ReadonlySet<string> = new Set(['archiveBody']);

/** Stored as DynamoDB lists of strings. */
const STRING_LIST_ATTRIBUTES: ReadonlySet<string> = new Set(['attemptLog']);

export function toAttributeValue(value: string | number | readonly string[]): AttributeValue {
  if (typeof value === 'number') return { N: String(value) };
  if (typeof value === 'string') return { S: value };
  return { L: value.map((entry) => ({ S: entry })) };
}

/** Expression attribute values from plain values; undefined entries are left out. */
export function toAttributes(values: Record<string, string | number | readonly string[] | undefined>): Item {
  const item: Item = {};
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) item[name] = toAttributeValue(value);
  }
  return item;
}

export function toInboxItem(record: InboxRecord): Item {
  const { givenUpMessageIds, ...scalars } = record;
  const item = toAttributes({ ...scalars });
  // A string set (DynamoDB has no empty set): the processor ADDs to it one message id at a time.
  if (givenUpMessageIds && givenUpMessageIds.length > 0) item.givenUpMessageIds = { SS: givenUpMessageIds };
  for (const name of BINARY_ATTRIBUTES) {
    const value = item[name]?.S;
    if (value !== undefined) item[name] = { B: Buffer.from(value, 'base64') };
  }
  return item;
}

export function fromInboxItem(item: Item): InboxRecord {
  const record: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(item)) {
    if (LIST_ATTRIBUTE_NAMES.has(name)) continue;
    if (STRING_LIST_ATTRIBUTES.has(name) && value.L !== undefined) {
      record[name] = value.L.flatMap((entry) => (entry.S === undefined ? [] : [entry.S]));
      continue;
    }
    if (NUMBER_ATTRIBUTES.has(name) && value.N !== undefined) record[name] = Number(value.N);
    else if (value.S !== undefined) record[name] = value.S;
    else if (value.SS !== undefined) record[name] = [...value.SS].sort();
    else if (BINARY_ATTRIBUTES.has(name) && value.B !== undefined)
      record[name] = Buffer.from(value.B).toString('base64');
  }
  return record as unknown as InboxRecord;
}
