// Event types and delivery ids are the sender's text: an unsigned header (X-GitHub-Event, X-Shopify-Topic,
// Linear-Event, a generic-hmac partner's header) or a field of the signed body. They reach the log line,
// the terminal, the inbox record and the queue message, so through the real verify handler over dynalite
// and fauxqs: what providers really send is accepted as sent, anything that is not a short token is
// refused with its reason and logged without the text, and a repeated header is refused like any other.
import { createHmac, randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultProviders, parseConfig } from '../../../config';
import { SCHEMES } from '../../../lambdas/core/schemes';
import type { ProvisionedResources } from '../../../local/resources';
import { restProxyEvent } from '../../../local/rest-proxy-event';
import { useEmulators } from '../../support/emulators';
import { StaticSecrets, signedEvent, TestClock, verifyHandlerFor } from '../../support/pipeline';

const config = parseConfig({
  providers: {
    ...defaultProviders(),
    // Spelled out: listed providers do not get the scheme's own defaults (forms for Slack) today.
    slack: {
      scheme: 'slack',
      contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
      requireJson: false,
    },
    // A generic-hmac partner that names the type and the delivery in headers of its own.
    partner: {
      scheme: 'generic-hmac',
      options: {
        signatureHeader: 'X-Partner-Signature',
        eventTypeHeader: 'X-Partner-Event',
        idHeader: 'X-Partner-Delivery',
      },
    },
  },
});
const ctx = useEmulators({ config });
const secrets = Object.fromEntries(
  Object.entries(config.providers).map(([id, p]) => [id, [SCHEMES[p.scheme].generateSecret()]]),
);

let resources: ProvisionedResources;
let clock: TestClock;
beforeEach(() => {
  clock = new TestClock(Date.now());
});
/**
 * Fresh resources per test where deliveries are accepted; shared per block where every one is refused,
 * so each refusal still proves nothing at all was stored (a provision costs a table and two queues).
 */
const freshPerTest = () =>
  beforeEach(async () => {
    resources = await ctx.provision();
  });
const sharedPerBlock = () =>
  beforeAll(async () => {
    resources = await ctx.provision();
  });

/** How a provider conveys the event type: a header it sends, or a body builder that puts it in the body. */
interface Carrier {
  provider: string;
  /** Set for header carriers: the header `sign` writes the type into. */
  header?: string;
  body(type: string | undefined, nowMs: number): Record<string, unknown>;
}

const nonce = () => randomUUID();
const CARRIERS: Carrier[] = [
  {
    provider: 'github',
    header: 'X-GitHub-Event',
    body: () => ({ zen: 'Keep it logically awesome.', n: nonce() }),
  },
  { provider: 'shopify', header: 'X-Shopify-Topic', body: () => ({ id: 820982911946154500, n: nonce() }) },
  // Linear names the type in a header first; this body has no `type`, so the header is what is read.
  {
    provider: 'linear',
    header: 'Linear-Event',
    body: (_type, nowMs) => ({ action: 'create', webhookTimestamp: nowMs, n: nonce() }),
  },
  { provider: 'partner', header: 'X-Partner-Event', body: () => ({ n: nonce() }) },
  {
    provider: 'stripe',
    body: (type) => ({ id: `evt_${nonce().replaceAll('-', '')}`, object: 'event', type }),
  },
  {
    provider: 'paddle',
    body: (type) => ({ notification_id: `ntf_${nonce().replaceAll('-', '')}`, event_type: type }),
  },
  { provider: 'square', body: (type) => ({ merchant_id: 'MLX', event_id: nonce(), type }) },
  {
    provider: 'zoom',
    body: (type) => ({ event: type, event_ts: 1_764_000_000_000, payload: { n: nonce() } }),
  },
  { provider: 'slack', body: (type) => ({ type: 'event_callback', event: { type }, event_id: nonce() }) },
  { provider: 'standard-webhooks', body: (type) => ({ type, timestamp: '2026-01-01T00:00:00Z', data: {} }) },
  { provider: 'mobazha', body: (type) => ({ specversion: '1.0', id: nonce(), type }) },
  { provider: 'generic-hmac', body: (type) => ({ type, n: nonce() }) },
];
const HEADER_CARRIERS = CARRIERS.filter((c) => c.header !== undefined);

// What the providers document and send, per provider, so that the token rule refuses none of them.
const REAL_TYPES: Record<string, string[]> = {
  github: ['pull_request', 'github_app_authorization', 'ping'],
  shopify: ['orders/create', 'app/uninstalled', 'customers/data_request', 'inventory_levels/update'],
  linear: ['Issue', 'IssueLabel', 'AppUserNotification'],
  partner: ['order.created', 'order:created', 'commande.créée'],
  stripe: [
    'customer.subscription.updated',
    'v1.billing.meter.error_report_triggered',
    'v2.core.event_destination.ping',
  ],
  paddle: ['transaction.payment_failed', 'subscription.past_due'],
  square: ['payment.updated', 'loyalty.account.created'],
  zoom: ['meeting.participant_joined', 'recording.completed'],
  slack: ['app_mention', 'reaction_added', '/deploy-app', '/天気', '/déploy'],
  'standard-webhooks': ['invoice.paid', 'user.signup', `${'a.'.repeat(127)}z`],
  mobazha: ['com.mobazha.order.created'],
  'generic-hmac': ['invoice.paid'],
};

// Each is what an adversarial probe sent: too long, or carrying what a terminal or a spreadsheet acts on.
const BAD_TYPES: { name: string; type: string }[] = [
  { name: '8,000 characters', type: 'x'.repeat(8000) },
  { name: 'one character over 256', type: 'x'.repeat(257) },
  { name: 'U+009B (the one-character CSI) clearing the screen', type: 'push\u009b2J' },
  { name: 'ESC (an ANSI sequence)', type: 'push\u001b[31mred' },
  { name: 'DEL', type: 'push\u007f' },
  { name: 'a space', type: 'Order Created' },
  { name: 'a comma-joined duplicate', type: 'push, pull_request' },
  { name: 'a leading = (a spreadsheet formula)', type: '=HYPERLINK("http://x.example")' },
  { name: 'a right-to-left override (U+202E)', type: 'push\u202Eexe.txt' },
  { name: 'a zero-width space (U+200B)', type: 'pu\u200Bsh' },
  { name: 'a full-width comma', type: 'push\uFF0Cpull_request' },
];

function eventFor(
  carrier: Carrier,
  type: string | undefined,
  headers: Record<string, string | string[] | undefined> = {},
): APIGatewayProxyEvent {
  const body = JSON.stringify(carrier.body(type, clock.ms));
  return signedEvent(
    carrier.provider,
    config,
    {
      body,
      secret: secrets[carrier.provider]![0]!,
      timestamp: clock.seconds(),
      id: `msg_${nonce()}`,
      eventType: type,
    },
    { headers },
  );
}

async function send(event: APIGatewayProxyEvent | APIGatewayProxyEventV2) {
  const { handler, logger } = verifyHandlerFor(ctx, resources, {
    config,
    secrets: new StaticSecrets(secrets),
    clock,
  });
  const response = await handler(event);
  return { response, logger };
}

async function inboxRecords(): Promise<number> {
  const scan = await ctx.clients.dynamodb.send(
    new ScanCommand({ TableName: resources.tableName, Select: 'COUNT' }),
  );
  return scan.Count ?? 0;
}

/** The answer, one log line with the reason and without the text, and nothing stored or queued. */
async function expectRefused(
  sent: Awaited<ReturnType<typeof send>>,
  expected: { status: number; reason: string },
  text?: string,
) {
  expect(sent.response.statusCode).toBe(expected.status);
  expect(JSON.parse(sent.response.body)).toEqual({ error: expected.reason });
  expect(sent.logger.lines).toHaveLength(1);
  const [line] = sent.logger.lines;
  expect(line).toMatchObject({ message: 'delivery rejected', attributes: { reason: expected.reason } });
  expect(line!.attributes.eventType).toBeUndefined();
  const logged = JSON.stringify(sent.logger.lines);
  if (text !== undefined) expect(logged).not.toContain(JSON.stringify(text).slice(1, -1));
  expect(logged.length).toBeLessThan(1000);
  expect(await ctx.countMessages(resources.queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  expect(await inboxRecords()).toBe(0);
}

/** An HTTP API (payload v2) event for the same request: API Gateway joins a repeated header with commas. */
function asHttpApi(event: APIGatewayProxyEvent): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {}))
    headers[name.toLowerCase()] = [headers[name.toLowerCase()], ...(values ?? [])].filter(Boolean).join(',');
  return {
    version: '2.0',
    routeKey: 'POST /webhooks/{provider}',
    rawPath: event.path,
    rawQueryString: '',
    headers,
    body: event.body ?? undefined,
    isBase64Encoded: event.isBase64Encoded,
    pathParameters: event.pathParameters ?? undefined,
    requestContext: {
      domainName: event.requestContext.domainName,
      requestId: randomUUID(),
      http: { method: 'POST', path: event.path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.7', userAgent: '' },
    },
  } as unknown as APIGatewayProxyEventV2;
}

describe('event types providers really send are accepted as sent', () => {
  freshPerTest();
  it.each(CARRIERS.map((c) => [c.provider, c] as const))('%s', async (_name, carrier) => {
    for (const type of REAL_TYPES[carrier.provider]!) {
      const { response, logger } = await send(eventFor(carrier, type));
      expect({ type, status: response.statusCode, answer: response.body }).toMatchObject({
        type,
        status: 202,
      });
      expect(logger.lines[0]!.attributes.eventType).toBe(type);
    }
    const messages = await ctx.receiveAll(resources.queueUrl);
    expect(messages.map((m) => (JSON.parse(m.body) as { type: string }).type).sort()).toEqual(
      [...REAL_TYPES[carrier.provider]!].sort(),
    );
  });

  it("accepts a Slack slash command's /name (a form body)", async () => {
    const body = `command=${encodeURIComponent('/deploy-app')}&text=now&trigger_id=${nonce()}`;
    const event = signedEvent('slack', config, {
      body,
      secret: secrets.slack![0]!,
      timestamp: clock.seconds(),
    });
    const { response, logger } = await send(event);
    expect(response.statusCode).toBe(202);
    expect(logger.lines[0]!.attributes.eventType).toBe('/deploy-app');
  });
});

describe('event types that are not a short token are refused 400 bad_event_type, and not logged', () => {
  sharedPerBlock();
  const cases = CARRIERS.flatMap((carrier) =>
    BAD_TYPES.map((bad) => [carrier.provider, bad.name, carrier, bad] as const),
  );
  it.each(cases)('%s: %s', async (_provider, _name, carrier, { type }) => {
    await expectRefused(await send(eventFor(carrier, type)), { status: 400, reason: 'bad_event_type' }, type);
  });

  it('still accepts a body whose odd type field the scheme does not read (GitHub types come from the header)', async () => {
    resources = await ctx.provision(); // accepted: not on the block's shared resources
    const body = Buffer.from(JSON.stringify({ type: 'x\u009b'.repeat(3000), n: nonce() }));
    const event = signedEvent('github', config, {
      body,
      secret: secrets.github![0]!,
      timestamp: clock.seconds(),
      eventType: 'push',
    });
    const { response, logger } = await send(event);
    expect(response.statusCode).toBe(202);
    expect(logger.lines[0]!.attributes.eventType).toBe('push');
  });
});

describe('a repeated event-type header is refused like any repeated header', () => {
  sharedPerBlock();
  it.each(HEADER_CARRIERS.map((c) => [c.provider, c.header!, c] as const))(
    '%s: two %s values (multiValueHeaders) 401 repeated_header',
    async (_provider, header, carrier) => {
      const type = REAL_TYPES[carrier.provider]![0]!;
      await expectRefused(await send(eventFor(carrier, type, { [header]: [type, type] })), {
        status: 401,
        reason: 'repeated_header',
      });
    },
  );

  it.each(HEADER_CARRIERS.map((c) => [c.provider, c.header!, c] as const))(
    '%s: %s and its lowercase spelling 401 repeated_header',
    async (_provider, header, carrier) => {
      const type = REAL_TYPES[carrier.provider]![0]!;
      const event = eventFor(carrier, type, { [header.toLowerCase()]: 'ping' });
      await expectRefused(await send(event), { status: 401, reason: 'repeated_header' });
    },
  );

  it.each(HEADER_CARRIERS.map((c) => [c.provider, c.header!, c] as const))(
    '%s: two %s values joined by an HTTP API (payload v2) 400 bad_event_type',
    async (_provider, header, carrier) => {
      const type = REAL_TYPES[carrier.provider]![0]!;
      const event = asHttpApi(eventFor(carrier, type, { [header]: [type, 'ping'] }));
      expect(event.headers[header.toLowerCase()]).toBe(`${type},ping`);
      await expectRefused(await send(event), { status: 400, reason: 'bad_event_type' });
    },
  );

  it('accepts the same GitHub delivery sent once, through the HTTP API too (the control)', async () => {
    resources = await ctx.provision(); // accepted: not on the block's shared resources
    const github = CARRIERS.find((c) => c.provider === 'github')!;
    const { response } = await send(asHttpApi(eventFor(github, 'pull_request')));
    expect(response.statusCode).toBe(202);
  });
});

describe('delivery ids from headers are tokens too (401 malformed_id)', () => {
  sharedPerBlock();
  const ID_HEADERS = [
    { provider: 'github', header: 'X-GitHub-Delivery' },
    { provider: 'shopify', header: 'X-Shopify-Webhook-Id' },
    { provider: 'linear', header: 'Linear-Delivery' },
    { provider: 'partner', header: 'X-Partner-Delivery' },
  ];
  const ids = [
    { name: '8,000 characters', id: 'd'.repeat(8000) },
    { name: 'U+009B', id: 'd\u009b2J' },
    { name: 'ESC', id: 'd\u001b[2J' },
  ];
  it.each(
    ID_HEADERS.flatMap(({ provider, header }) =>
      ids.map((each) => [provider, header, each.name, each.id] as const),
    ),
  )('%s: %s with %s', async (provider, header, _name, id) => {
    const carrier = CARRIERS.find((c) => c.provider === provider)!;
    const event = eventFor(carrier, REAL_TYPES[provider]![0], { [header]: id });
    await expectRefused(await send(event), { status: 401, reason: 'malformed_id' }, id);
  });

  it.each(ID_HEADERS)('$provider: two $header values 401 repeated_header', async ({ provider, header }) => {
    const carrier = CARRIERS.find((c) => c.provider === provider)!;
    const event = eventFor(carrier, REAL_TYPES[provider]![0], { [header]: [randomUUID(), randomUUID()] });
    await expectRefused(await send(event), { status: 401, reason: 'repeated_header' });
  });
});

describe('Square signs the URL: on AWS it comes from the request context, never from Host', () => {
  sharedPerBlock();
  const API = 'abc123.execute-api.eu-west-1.amazonaws.com';
  const squareEvent = (signedFor: string) => {
    const body = Buffer.from(
      JSON.stringify({ merchant_id: 'MLX', event_id: nonce(), type: 'payment.updated' }),
    );
    const signature = createHmac('sha256', secrets.square![0]!)
      .update(signedFor)
      .update(body)
      .digest('base64');
    const event = restProxyEvent({
      method: 'POST',
      path: '/webhooks/square',
      headers: {
        'Content-Type': 'application/json',
        'x-square-hmacsha256-signature': signature,
        Host: 'evil.example',
        'X-Forwarded-Host': 'evil.example',
        'X-Forwarded-Proto': 'http',
      },
      body,
      host: API,
    });
    // As API Gateway sends it: the stage in the context's path.
    event.requestContext.path = '/prod/webhooks/square';
    return event;
  };

  it.each(['https://evil.example/prod/webhooks/square', 'http://evil.example/webhooks/square'])(
    'refuses a signature made for %s 401 bad_signature',
    async (url) => {
      await expectRefused(await send(squareEvent(url)), { status: 401, reason: 'bad_signature' });
    },
  );

  it("accepts the signature made for the API's own URL", async () => {
    resources = await ctx.provision(); // accepted: not on the block's shared resources
    const { response } = await send(squareEvent(`https://${API}/prod/webhooks/square`));
    expect(response.statusCode).toBe(202);
  });
});
