// Captures the requests a real SDK v3 client signs, and answers them itself: what a test needs to check
// where a request goes (host) and for which region it is signed (the SigV4 credential scope), without AWS.
import { createHash } from 'node:crypto';

export interface SignedRequest {
  hostname: string;
  /** `<date>/<region>/<service>/aws4_request`, from the Authorization header. */
  credentialScope: string;
  /** The X-Amz-Target header: the operation of a JSON-protocol call. */
  target: string;
  body: Record<string, unknown>;
}

interface StackClient {
  middlewareStack: {
    // biome-ignore lint/suspicious/noExplicitAny: each client types its stack by its own input/output unions.
    add(middleware: any, options: { step: 'deserialize'; name: string; priority: 'low' }): void;
  };
}

/** The answer to a captured call, by its operation: SQS SendMessage, GetQueueAttributes, PutEvents. */
function answerFor(target: string, body: Record<string, unknown>): Record<string, unknown> {
  if (target === 'AmazonSQS.SendMessage') {
    const md5 = createHash('md5')
      .update(String(body.MessageBody ?? ''))
      .digest('hex');
    return { MessageId: 'captured-1', MD5OfMessageBody: md5 };
  }
  if (target === 'AWSEvents.PutEvents') {
    const entries = (body.Entries as unknown[] | undefined) ?? [];
    return { FailedEntryCount: 0, Entries: entries.map((_, i) => ({ EventId: `captured-${i}` })) };
  }
  return {};
}

/**
 * Every request `client` sends from now on lands in the returned list, after signing, and is answered with
 * success instead of reaching the network.
 */
export function captureSignedRequests(client: StackClient): SignedRequest[] {
  const captured: SignedRequest[] = [];
  client.middlewareStack.add(
    () =>
      async (args: {
        request: { hostname: string; headers: Record<string, string>; body?: string | Uint8Array };
      }) => {
        const { request } = args;
        const authorization = request.headers.authorization ?? request.headers.Authorization ?? '';
        const scope = /Credential=[^/]+\/([^,]+),/.exec(authorization)?.[1] ?? '';
        const target = request.headers['x-amz-target'] ?? request.headers['X-Amz-Target'] ?? '';
        const raw = request.body ?? '{}';
        const text = typeof raw === 'string' ? raw : new TextDecoder().decode(raw);
        const body = JSON.parse(text) as Record<string, unknown>;
        captured.push({ hostname: request.hostname, credentialScope: scope, target, body });
        const json = JSON.stringify(answerFor(target, body));
        return {
          // An HttpResponse's shape: the deserializers read these three fields.
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/x-amz-json-1.0' },
            body: new Uint8Array(Buffer.from(json)),
          },
        };
      },
    { step: 'deserialize', name: 'captureSignedRequests', priority: 'low' },
  );
  return captured;
}
