// Child entry: the destination for the forwarding bench and the cost model, on 127.0.0.1 in its own process,
// so that its work lands in neither's measured CPU. It answers a POST 204 at once, and an EventBridge
// PutEvents (X-Amz-Target AWSEvents.PutEvents) as the service does, with an event id per entry.
//
// Prints {"port"} first, then one line per request, after the answer: `<path> <body bytes> <request line
// and header bytes> <sha256 of the body, 16 hex> <signature>`, the signature `ok` or `bad` under the
// standardwebhooks library with the secret the parent last wrote to stdin (`secret <whsec_...>`), or `-`
// when the request carries none.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { Webhook } from 'standardwebhooks';
import { exitWhenParentCloses } from './child';

let webhook: Webhook | undefined;
createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, value] = line.split(' ');
  if (command === 'secret' && value) webhook = new Webhook(value);
});

function headBytes(request: IncomingMessage): number {
  let bytes = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}\r\n\r\n`);
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    bytes += Buffer.byteLength(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}\r\n`);
  }
  return bytes;
}

function signature(request: IncomingMessage, body: Buffer): string {
  if (request.headers['webhook-signature'] === undefined) return '-';
  try {
    webhook?.verify(body, request.headers as Record<string, string>);
    return webhook ? 'ok' : 'bad';
  } catch {
    return 'bad';
  }
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    if (String(request.headers['x-amz-target']).endsWith('.PutEvents')) {
      const { Entries = [] } = JSON.parse(body.toString('utf8')) as { Entries?: unknown[] };
      response
        .writeHead(200, { 'content-type': 'application/x-amz-json-1.1' })
        .end(
          JSON.stringify({ FailedEntryCount: 0, Entries: Entries.map(() => ({ EventId: randomUUID() })) }),
        );
    } else {
      response.writeHead(204).end();
    }
    const sha = createHash('sha256').update(body).digest('hex').slice(0, 16);
    process.stdout.write(
      `${request.url} ${body.length} ${headBytes(request)} ${sha} ${signature(request, body)}\n`,
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
exitWhenParentCloses(async () => {
  server.closeAllConnections();
  server.close();
});
