// Counts and times the AWS API calls a handler makes, at the SDK's transport: each client's request
// handler is wrapped, so what is recorded is one HTTP request to the service (or emulator) and the time
// until its response arrived. Everything the SDK does around it (serializing, signing, parsing) stays on
// the caller's side of the line. Also DynamoDB's item-size rule, for write units.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { AwsClients } from '../../lambdas/adapters/clients';

export type Service = keyof AwsClients | 'eventbridge';

export interface RecordedCall {
  service: Service;
  /** The API operation: PutItem, SendMessage, PutObject, ... */
  operation: string;
  /** Wall time from handing the request to the transport until the response arrived. */
  ms: number;
  /** The request body of the calls the cost model sizes (SendMessage), as text. */
  body?: string;
}

/** Operations whose request bodies are kept: what is sent (item sizes come from a read-back). */
const KEEP_BODY = new Set(['SendMessage', 'PutEvents']);

function bodyText(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  // The JSON protocols hand the transport UTF-8 bytes (a Uint8Array subclass).
  if (body instanceof Uint8Array)
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return undefined;
}

interface HttpRequestLike {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

function header(request: HttpRequestLike, name: string): string | undefined {
  for (const [key, value] of Object.entries(request.headers ?? {})) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

function operationOf(service: Service, request: HttpRequestLike): string {
  // The JSON protocols (DynamoDB, SQS, Secrets Manager) name the operation in X-Amz-Target.
  const target = header(request, 'x-amz-target');
  if (target) return target.slice(target.lastIndexOf('.') + 1);
  if (typeof request.body === 'string') {
    const action = /(?:^|&)Action=([A-Za-z]+)/.exec(request.body);
    if (action) return action[1] as string;
  }
  if (service === 's3') {
    const method = request.method ?? '';
    return (
      { PUT: 'PutObject', GET: 'GetObject', HEAD: 'HeadObject', DELETE: 'DeleteObject' }[method] ?? method
    );
  }
  return request.method ?? 'unknown';
}

export class CallRecorder {
  private calls: RecordedCall[] | undefined;

  /** Wraps every client's transport. Calls are recorded only between begin() and end(). */
  instrument(clients: Partial<Record<Service, { config: unknown }>>): void {
    for (const service of Object.keys(clients) as Service[]) {
      const config = clients[service]?.config as {
        requestHandler: { handle: (request: HttpRequestLike, options?: unknown) => Promise<unknown> };
      };
      const transport = config.requestHandler;
      const handle = transport.handle.bind(transport);
      transport.handle = async (request, options) => {
        const calls = this.calls;
        if (!calls) return handle(request, options);
        const operation = operationOf(service, request);
        const started = performance.now();
        try {
          return await handle(request, options);
        } finally {
          const ms = performance.now() - started;
          const body = KEEP_BODY.has(operation) ? bodyText(request.body) : undefined;
          calls.push({ service, operation, ms, ...(body === undefined ? {} : { body }) });
        }
      };
    }
  }

  /** The calls recorded since begin(), so far. */
  get recorded(): readonly RecordedCall[] {
    return this.calls ?? [];
  }

  begin(): void {
    this.calls = [];
  }

  end(): RecordedCall[] {
    const calls = this.calls ?? [];
    this.calls = undefined;
    return calls;
  }
}

/** `service:Operation`, the key the cost model's assumptions use. */
export function callKey(call: Pick<RecordedCall, 'service' | 'operation'>): string {
  return `${call.service}:${call.operation}`;
}

function utf8(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** DynamoDB's size of a number: about one byte per two significant digits, plus one. */
function numberBytes(text: string): number {
  const digits = text
    .replace(/^[+-]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

type WireValue = AttributeValue | { [type: string]: unknown };

function binaryBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  if (typeof value === 'string') return Buffer.from(value, 'base64').byteLength;
  return 0;
}

function valueBytes(value: WireValue): number {
  const v = value as Record<string, unknown>;
  if (typeof v.S === 'string') return utf8(v.S);
  if (typeof v.N === 'string') return numberBytes(v.N);
  if (v.B !== undefined) return binaryBytes(v.B);
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (Array.isArray(v.SS)) return (v.SS as string[]).reduce((sum, s) => sum + utf8(s), 0);
  if (Array.isArray(v.NS)) return (v.NS as string[]).reduce((sum, n) => sum + numberBytes(n), 0);
  if (Array.isArray(v.BS)) return (v.BS as unknown[]).reduce<number>((sum, b) => sum + binaryBytes(b), 0);
  if (Array.isArray(v.L))
    return 3 + (v.L as WireValue[]).reduce((sum, item) => sum + 1 + valueBytes(item), 0);
  if (v.M && typeof v.M === 'object')
    return (
      3 +
      Object.entries(v.M as Record<string, WireValue>).reduce(
        (sum, [k, item]) => sum + utf8(k) + 1 + valueBytes(item),
        0,
      )
    );
  throw new Error(`unknown DynamoDB attribute value: ${JSON.stringify(value).slice(0, 80)}`);
}

/**
 * An item's size as DynamoDB counts it for capacity units: for each attribute, the UTF-8 length of its name
 * plus its value (strings in UTF-8 bytes, numbers about one byte per two significant digits plus one,
 * binary in bytes, booleans and nulls one byte, lists and maps three bytes plus one per element).
 */
export function dynamoItemBytes(item: Record<string, WireValue>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueBytes(value), 0);
}

/** SQS's payload of a SendMessage: the body plus each attribute's name, data type and value. */
export function sqsPayloadBytes(body: string, attributes: Record<string, string>): number {
  return Object.entries(attributes).reduce(
    (sum, [name, value]) => sum + utf8(name) + utf8('String') + utf8(value),
    utf8(body),
  );
}

/** A global secondary index as its writes are billed: its keys, what it projects, and the table's key. */
export interface IndexShape {
  partitionKey: string;
  sortKey: string;
  nonKeyAttributes: readonly string[];
  tableKeys: readonly string[];
}

type Item = Record<string, WireValue>;

/** The item's entry in the index (keys and projected attributes), or none while an index key is absent. */
export function indexEntry(item: Item | undefined, index: IndexShape): Item | undefined {
  if (item?.[index.partitionKey] === undefined || item[index.sortKey] === undefined) return undefined;
  const names = [...index.tableKeys, index.partitionKey, index.sortKey, ...index.nonKeyAttributes];
  return Object.fromEntries(
    names.flatMap((name) => (item[name] === undefined ? [] : [[name, item[name] as WireValue]])),
  );
}

/**
 * What a run of table writes costs in the index, from the item after each write (absent before the first),
 * by DynamoDB's rule for a GSI: an entry that appears is one put and one that disappears one delete; an
 * index key that changes is two (the old entry deleted, the new one put); a projected attribute alone that
 * changes is one; anything else none. Each is ceil(entry bytes / 1 KB) write units, at least one.
 */
export function indexWrites(items: readonly (Item | undefined)[], index: IndexShape) {
  const wruOf = (entry: Item) => Math.max(1, Math.ceil(dynamoItemBytes(entry) / 1024));
  const keyOf = (entry: Item) => JSON.stringify([entry[index.partitionKey], entry[index.sortKey]]);
  let writes = 0;
  let wru = 0;
  let before: Item | undefined;
  for (const item of items) {
    const after = indexEntry(item, index);
    const changed: Item[] =
      before && after
        ? keyOf(before) !== keyOf(after)
          ? [before, after]
          : JSON.stringify(before) !== JSON.stringify(after)
            ? [after]
            : []
        : [before ?? after].filter((entry): entry is Item => entry !== undefined);
    writes += changed.length;
    wru += changed.reduce((sum, entry) => sum + wruOf(entry), 0);
    before = after;
  }
  return { writes, wru };
}
