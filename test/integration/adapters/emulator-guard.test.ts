// The guard in front of dynalite and fauxqs (local/emulator-guard.mjs): a bare HTTP client, which sends
// exactly the headers given, gets 403 and a reason code for every request that is not SigV4-signed with the
// launch's credential, or that carries what a browser adds (`Origin`, `Sec-Fetch-*`); no answer grants
// CORS; and the SDK's clients, signing with the launch's credential, work as before.
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { GetItemCommand, ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ListQueuesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { type AwsClients, createAwsClients } from '../../../lambdas/adapters/clients';
import { type EmulatorCredentials, type Emulators, startEmulators } from '../../../local/emulators';
import { type ProvisionedResources, provisionResources } from '../../../local/resources';
import { uniqueNames } from '../../support/emulators';
import { Sha256 } from '../../support/node-sha256';

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request with exactly these headers, on a connection of its own (node:http adds none of its own). */
function send(url: string, method: string, headers: Record<string, string>, body = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Call {
  url: string;
  service: 'dynamodb' | 'sqs';
  headers: Record<string, string>;
  body: string;
}

/** A harmless call to each emulator, in the wire format its SDK client uses. */
function calls(emulators: Emulators): Call[] {
  return [
    {
      url: emulators.endpoints.dynamodb,
      service: 'dynamodb',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
      },
      body: '{}',
    },
    {
      url: emulators.endpoints.sqs,
      service: 'sqs',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
      body: '{}',
    },
  ];
}

/** The call's headers with a SigV4 signature by `credentials`, as the SDK would sign it. */
async function signed(call: Call, credentials: EmulatorCredentials): Promise<Record<string, string>> {
  const url = new URL(call.url);
  const signer = new SignatureV4({ credentials, region: 'us-east-1', service: call.service, sha256: Sha256 });
  const request = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    query: {},
    headers: { ...call.headers, host: url.host },
    body: call.body,
  });
  return request.headers as Record<string, string>;
}

const anyCors = (answer: RawAnswer) =>
  Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'));
const reasonOf = (answer: RawAnswer) => (JSON.parse(answer.body) as { reason: string }).reason;

let emulators: Emulators;
let clients: AwsClients;
let resources: ProvisionedResources;

beforeAll(async () => {
  emulators = await startEmulators();
  clients = createAwsClients(emulators.clientOptions);
  resources = await provisionResources(clients, parseConfig({}), uniqueNames('guard'));
});

afterAll(async () => {
  for (const client of Object.values(clients ?? {})) client.destroy();
  await emulators?.stop();
});

describe('the emulator guard, to a bare HTTP client', () => {
  it('a request signed with the launch credential passes (the control for every refusal below)', async () => {
    for (const call of calls(emulators)) {
      const answer = await send(call.url, 'POST', await signed(call, emulators.credentials), call.body);
      expect(answer.status, `${call.service}: ${answer.body}`).toBe(200);
      expect(anyCors(answer)).toEqual([]);
    }
  });

  it('refuses a request without a credential: 403 missing_credential', async () => {
    for (const call of calls(emulators)) {
      const answer = await send(call.url, 'POST', call.headers, call.body);
      expect([call.service, answer.status, reasonOf(answer)]).toEqual([
        call.service,
        403,
        'missing_credential',
      ]);
    }
  });

  it('refuses any other credential, a forged signature and a body changed after signing', async () => {
    const other = { accessKeyId: 'webhook-inbox-local', secretAccessKey: 'webhook-inbox-local' };
    const knownIdOnly = {
      accessKeyId: emulators.credentials.accessKeyId,
      secretAccessKey: randomBytes(32).toString('base64url'),
    };
    for (const call of calls(emulators)) {
      const wrong = await send(call.url, 'POST', await signed(call, other), call.body);
      expect([call.service, wrong.status, reasonOf(wrong)]).toEqual([
        call.service,
        403,
        'unknown_credential',
      ]);
      const forged = await send(call.url, 'POST', await signed(call, knownIdOnly), call.body);
      expect([call.service, forged.status, reasonOf(forged)]).toEqual([call.service, 403, 'bad_signature']);
      const headers = await signed(call, emulators.credentials);
      const changed = await send(call.url, 'POST', headers, '{"Limit":1}');
      expect([call.service, changed.status, reasonOf(changed)]).toEqual([call.service, 403, 'bad_signature']);
      const made = {
        ...headers,
        authorization: `AWS4-HMAC-SHA256 Credential=${emulators.credentials.accessKeyId}`,
      };
      const malformed = await send(call.url, 'POST', made, call.body);
      expect([call.service, malformed.status, reasonOf(malformed)]).toEqual([
        call.service,
        403,
        'malformed_credential',
      ]);
    }
  });

  it('refuses a correctly signed request that also carries Origin, or Sec-Fetch-Site', async () => {
    for (const call of calls(emulators)) {
      const headers = await signed(call, emulators.credentials);
      const withOrigin = await send(
        call.url,
        'POST',
        { ...headers, origin: 'http://127.0.0.1:8080' },
        call.body,
      );
      expect([call.service, withOrigin.status, reasonOf(withOrigin)]).toEqual([
        call.service,
        403,
        'forbidden_origin',
      ]);
      expect(anyCors(withOrigin)).toEqual([]);
      const fetched = await send(call.url, 'POST', { ...headers, 'sec-fetch-site': 'same-site' }, call.body);
      expect([call.service, fetched.status, reasonOf(fetched)]).toEqual([
        call.service,
        403,
        'forbidden_fetch_metadata',
      ]);
    }
  });

  it('answers a CORS preflight 403 with no Access-Control-* header', async () => {
    for (const call of calls(emulators)) {
      const answer = await send(call.url, 'OPTIONS', {
        origin: 'http://127.0.0.1:8080',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-amz-target',
      });
      expect([call.service, answer.status]).toEqual([call.service, 403]);
      expect(anyCors(answer)).toEqual([]);
      const bare = await send(call.url, 'OPTIONS', {});
      expect([call.service, bare.status, reasonOf(bare)]).toEqual([call.service, 403, 'forbidden_method']);
    }
  });

  it("refuses fauxqs's own unsigned pages (health, queue inspection) and a plain GET to dynalite", async () => {
    for (const url of [
      `${emulators.endpoints.sqs}/health`,
      `${emulators.endpoints.sqs}/_fauxqs/queues`,
      `${emulators.endpoints.s3}/${resources.bucketName}`,
      emulators.endpoints.dynamodb,
    ]) {
      const answer = await send(url, 'GET', {});
      expect([url, answer.status, reasonOf(answer)]).toEqual([url, 403, 'missing_credential']);
    }
  });

  it('refuses a bad credential before reading the body: a client that never sends its 10 MB is answered', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(emulators.endpoints.dynamodb, {
        method: 'POST',
        agent: false,
        headers: { authorization: 'x', 'content-length': String(10 * 1024 * 1024) },
        signal: AbortSignal.timeout(5_000),
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
        request.destroy();
      });
      request.on('error', reject);
      request.flushHeaders();
    });
    expect(status).toBe(403);
  });

  it('keeps a journal of what it refused and why', async () => {
    const [call] = calls(emulators);
    await send(`${call!.url}/?journal-marker`, 'POST', call!.headers, call!.body);
    const entries = (await emulators.guardLog()).filter((entry) => entry.url.includes('journal-marker'));
    expect(entries).toEqual([
      {
        emulator: 'dynamodb',
        outcome: 'refused',
        reason: 'missing_credential',
        method: 'POST',
        url: '/?journal-marker',
      },
    ]);
  });
});

describe('the emulator guard, to the SDK clients', () => {
  it('lets the launch credential through: PutItem/GetItem, SendMessage/ReceiveMessage, PutObject/GetObject', async () => {
    const key = { pk: { S: 'guard#1' } };
    await clients.dynamodb.send(
      new PutItemCommand({ TableName: resources.tableName, Item: { ...key, v: { S: 'x' } } }),
    );
    const item = await clients.dynamodb.send(
      new GetItemCommand({ TableName: resources.tableName, Key: key }),
    );
    expect(item.Item?.v).toEqual({ S: 'x' });

    await clients.sqs.send(new SendMessageCommand({ QueueUrl: resources.dlqUrl, MessageBody: 'guarded' }));
    const received = await clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: resources.dlqUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 1 }),
    );
    expect(received.Messages?.map((message) => message.Body)).toEqual(['guarded']);

    const body = randomBytes(64 * 1024);
    await clients.s3.send(
      new PutObjectCommand({ Bucket: resources.bucketName, Key: 'a key/with spaces+plus', Body: body }),
    );
    const object = await clients.s3.send(
      new GetObjectCommand({ Bucket: resources.bucketName, Key: 'a key/with spaces+plus' }),
    );
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(body)).toBe(true);
  });

  it('turns away SDK clients that sign with the fixed stand-in keys of earlier versions', async () => {
    const stale = createAwsClients(emulators.endpoints);
    try {
      await expect(stale.dynamodb.send(new ListTablesCommand({}))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 403 },
      });
      await expect(stale.sqs.send(new ListQueuesCommand({}))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 403 },
      });
    } finally {
      for (const client of Object.values(stale)) client.destroy();
    }
  });
});
