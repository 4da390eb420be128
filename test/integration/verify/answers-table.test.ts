// The Answers table (docs/how-it-works.md), row by row, against the real verify handler over dynalite and fauxqs: each
// row's status, and for every reason code the row names, a request that produces it, an answer body that
// is that code and nothing else, and the request's log line with the same code as `reason`. Statuses and
// codes are read from the page, never from lambdas/core/reasons.ts or answers.ts (the tables under test).
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Config, parseConfig } from '../../../config';
import { S3PayloadWriter } from '../../../lambdas/adapters/s3-payload-writer';
import { SecretsManagerSource } from '../../../lambdas/adapters/secrets';
import { REJECT_STATUS } from '../../../lambdas/core/reasons';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import type { VerifyHandlerDeps, VerifyResponse } from '../../../lambdas/verify/verify-handler';
import { restProxyEvent } from '../../../local/rest-proxy-event';
import { docSection } from '../../support/docs';
import { useEmulators } from '../../support/emulators';
import { attemptFaultForTest, faultForTest, injectFault } from '../../support/faults';
import {
  type CapturingLogger,
  endingIn,
  StaticSecrets,
  signedEvent,
  TestClock,
  verifyHandlerFor,
} from '../../support/pipeline';

// ---- the table, as the page states it ----

interface Row {
  case: string;
  status: number;
  /** `+ Retry-After`, `empty body`, `{"duplicate":true}`, ...: what else the status cell promises. */
  statusText: string;
  codes: string[];
}

function documentedAnswers(): Row[] {
  const section = docSection('docs/how-it-works.md', '## Answers');
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  return lines.slice(2).map((line) => {
    const [caseText, statusText, codesText] = line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()) as [string, string, string];
    return {
      case: caseText,
      status: Number(/^\d{3}/.exec(statusText)?.[0]),
      statusText,
      codes: [...codesText.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1] as string),
    };
  });
}

const ROWS = documentedAnswers();

// ---- the instance under test ----

const SECRETS: Record<string, string[]> = {
  'standard-webhooks': [standardWebhooks.generateSecret()],
  github: ['gh-secret-for-the-answers-table'],
  stripe: ['whsec_stripe_for_the_answers_table'],
  slack: ['slack-signing-secret-answers'],
  shopify: ['shopify-secret-answers-table'],
  square: ['square-signature-key-answers'],
  acme: ['acme-partner-secret-answers'],
  empty: [],
};

const config: Config = parseConfig({
  providers: {
    'standard-webhooks': { scheme: 'standard-webhooks', maxBodyBytes: 1024 },
    github: { scheme: 'github' },
    stripe: { scheme: 'stripe' },
    slack: { scheme: 'slack' },
    shopify: { scheme: 'shopify' },
    square: { scheme: 'square' },
    acme: { scheme: 'generic-hmac', options: { signatureHeader: 'X-Acme-Signature' } },
    empty: { scheme: 'github' },
  },
});
const ctx = useEmulators({ config });

let resources: Awaited<ReturnType<typeof ctx.provision>>;
let clock: TestClock;
beforeEach(async () => {
  resources = await ctx.provision();
  clock = new TestClock();
});

interface Answered {
  response: VerifyResponse;
  logger: CapturingLogger;
}

/** One request through a handler of its own, so its logger holds this request's lines only. */
async function send(
  event: APIGatewayProxyEvent,
  overrides: Partial<VerifyHandlerDeps> & { config?: Config } = {},
  context = endingIn(8_000),
): Promise<Answered> {
  const { handler, logger } = verifyHandlerFor(ctx, resources, {
    config,
    secrets: new StaticSecrets(SECRETS),
    clock,
    ...overrides,
  });
  return { response: await handler(event, context), logger };
}

const sw = (
  input: { body?: string; id?: string; timestamp?: number } = {},
  tweak: Parameters<typeof signedEvent>[3] = {},
) =>
  signedEvent(
    'standard-webhooks',
    config,
    {
      body: input.body ?? '{"type":"invoice.paid","timestamp":"2026-12-01T12:00:00Z","data":{}}',
      secret: SECRETS['standard-webhooks']![0]!,
      timestamp: input.timestamp ?? clock.seconds(),
      id: input.id ?? 'msg_answers_1',
    },
    tweak,
  );

const signed = (provider: string, body: string, input: { id?: string; eventType?: string } = {}) =>
  signedEvent(provider, config, {
    body,
    secret: SECRETS[provider]![0] ?? 'unused',
    timestamp: clock.seconds(),
    ...input,
  });

const swSignature = (event: APIGatewayProxyEvent) => event.headers['webhook-signature'] as string;

/** The fault's client call, and a check that it was reached, so a scenario cannot pass by not faulting. */
type Scenario = () => Promise<Answered>;

const noConfigCheck = (provider: string, options: unknown): Config => ({
  ...config,
  providers: { ...config.providers, [provider]: { ...config.providers[provider]!, options } as never },
});

/** A request producing each reason code the table names. */
const BY_CODE: Record<string, Scenario> = {
  method_not_allowed: () => send(sw({}, { method: 'GET' })),
  unknown_provider: () => send({ ...sw(), pathParameters: { provider: 'gitlab' } }),
  body_too_large: () => send(sw({ body: `{"type":"big","pad":"${'x'.repeat(1100)}"}` })),
  unsupported_media_type: () => send(sw({}, { headers: { 'Content-Type': 'text/plain' } })),
  missing_header: () => send(sw({}, { headers: { 'webhook-signature': undefined } })),
  malformed_signature: () => send(sw({}, { headers: { 'webhook-signature': 'v1,!!!not-base64!!!' } })),
  no_supported_signature: () => send(sw({}, { headers: { 'webhook-signature': 'v2,c2lnbmF0dXJl' } })),
  bad_signature: () =>
    send(
      signedEvent('standard-webhooks', config, {
        body: '{"type":"invoice.paid","timestamp":"t","data":{}}',
        secret: standardWebhooks.generateSecret(),
        timestamp: clock.seconds(),
        id: 'msg_answers_1',
      }),
    ),
  malformed_timestamp: () => send(sw({}, { headers: { 'webhook-timestamp': '1.7e9' } })),
  stale_timestamp: () => send(sw({ timestamp: clock.seconds() - 3_600 })),
  future_timestamp: () => send(sw({ timestamp: clock.seconds() + 3_600 })),
  malformed_id: () => send(sw({ id: 'msg with spaces' })),
  repeated_header: () => {
    const event = sw();
    return send(sw({}, { headers: { 'webhook-signature': [swSignature(event), swSignature(event)] } }));
  },
  missing_event_id: () => send(signed('stripe', '{"type":"charge.succeeded","data":{"object":{}}}')),
  not_json: () => send(sw({ body: 'not json' })),
  bad_event_type: () => send(signed('github', '{"zen":"Speak like a human."}', { eventType: 'push now' })),
  conflict: async () => {
    expect((await send(sw())).response.statusCode).toBe(202);
    return send(sw({ body: '{"type":"invoice.paid","timestamp":"t","data":{"changed":true}}' }));
  },
  in_flight: async () => {
    // The put fails as if the record were taken, and the read then finds nothing, twice: a churning key.
    const churn = faultForTest(ctx.clients.dynamodb, {
      commands: 'PutItemCommand',
      times: 2,
      error: () => new ConditionalCheckFailedException({ message: 'injected', $metadata: {} }),
    });
    const answered = await send(sw());
    expect(churn.failures).toBe(2);
    return answered;
  },
  timeout: async () => {
    const hang = attemptFaultForTest(ctx.clients.sqs, {
      commands: 'SendMessageCommand',
      fault: 'hang-before',
    });
    const answered = await send(sw(), {}, endingIn(1_800));
    expect(hang.failures).toBeGreaterThan(0);
    return answered;
  },
  no_secret: () => send(signed('empty', '{}')),
  // Options parseConfig would refuse, as a hand-built config could carry them.
  bad_scheme_options: () =>
    send(signed('acme', '{"type":"x"}'), { config: noConfigCheck('acme', { template: '{timestamp}' }) }),
  no_notification_url: () => {
    // No configured URL and no domain reported by the front door: nothing Square signed can be rebuilt.
    const event = signed('square', '{"event_id":"e-1","type":"payment.created"}');
    return send({ ...event, requestContext: { ...event.requestContext, domainName: '' } });
  },
  dynamodb_unavailable: () => {
    const fault = faultForTest(ctx.clients.dynamodb, { commands: 'PutItemCommand' });
    return send(sw()).finally(() => expect(fault.failures).toBeGreaterThan(0));
  },
  sqs_unavailable: () => {
    const fault = faultForTest(ctx.clients.sqs, { commands: 'SendMessageCommand' });
    return send(sw()).finally(() => expect(fault.failures).toBeGreaterThan(0));
  },
  s3_unavailable: () => {
    let attempts = 0;
    const payloads = new S3PayloadWriter({
      bucket: resources.bucketName,
      bucketUrl: `${ctx.emulators.endpoints.s3}/${resources.bucketName}/`,
      signing: ctx.clients.s3.config,
      requestHandler: {
        handle: async () => {
          attempts++;
          throw Object.assign(new Error('injected: connection refused'), { code: 'ECONNREFUSED' });
        },
      },
      sleep: async () => {},
    });
    const big = { ...config, inlineLimitBytes: 16 };
    return send(sw(), { payloads, config: big }).finally(() => expect(attempts).toBeGreaterThan(0));
  },
  secrets_unavailable: () => {
    const client = new SecretsManagerClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const outage = injectFault(client, { commands: 'GetSecretValueCommand' });
    const arns = { 'standard-webhooks': 'arn:aws:secretsmanager:us-east-1:000000000000:secret:sw' };
    const secrets = new SecretsManagerSource(client, arns, { clock });
    return send(sw(), { secrets }).finally(() => {
      expect(outage.failures).toBeGreaterThan(0);
      client.destroy();
    });
  },
};

/** The rows that name no code, by a phrase of their case. */
const BY_CASE: [phrase: string, Scenario][] = [
  [
    'ssl_check=1',
    () =>
      send(
        restProxyEvent({
          method: 'POST',
          path: '/webhooks/slack',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: Buffer.from('ssl_check=1&token=probe-token'),
        }),
      ),
  ],
  [
    'duplicate of a delivery already enqueued',
    async () => {
      expect((await send(sw())).response.statusCode).toBe(202);
      return send(sw());
    },
  ],
  [
    'X-Shopify-Topic',
    async () => {
      const body = '{"id":820982911946154500,"email":"jon@example.com"}';
      expect((await send(signed('shopify', body, { eventType: 'orders/create' }))).response.statusCode).toBe(
        202,
      );
      return send(signed('shopify', body, { eventType: 'orders/updated' }));
    },
  ],
  ['accepted and durably enqueued', () => send(sw())],
];

/** The per-request line: the one that names the outcome and the status. */
const deliveryLine = (logger: CapturingLogger) =>
  logger.lines.filter((line) => line.attributes.status).at(-1);

function expectStatusCell(row: Row, response: VerifyResponse): void {
  expect(response.statusCode).toBe(row.status);
  if (row.statusText.includes('Retry-After'))
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  if (row.statusText.includes('empty body')) expect(response.body).toBe('');
  if (row.statusText.includes('{"duplicate":true}'))
    expect(JSON.parse(response.body)).toMatchObject({ duplicate: true });
  if (row.statusText.includes('{"id"')) expect(JSON.parse(response.body)).toEqual({ id: expect.any(String) });
}

describe('the documented Answers table', () => {
  it('has a row for every status the handler can answer, each with its codes or a case this test knows', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(17);
    for (const row of ROWS) {
      expect(Number.isInteger(row.status), row.case).toBe(true);
      if (row.codes.length > 0) for (const code of row.codes) expect(BY_CODE, row.case).toHaveProperty(code);
      else
        expect(
          BY_CASE.filter(([phrase]) => row.case.includes(phrase)),
          row.case,
        ).toHaveLength(1);
    }
  });

  it('names every rejection reason the handler has', () => {
    const named = new Set(ROWS.flatMap((row) => row.codes));
    expect(Object.keys(REJECT_STATUS).filter((reason) => !named.has(reason))).toEqual([]);
  });

  for (const row of ROWS) {
    for (const code of row.codes) {
      it(`${code}: answers ${row.statusText} with {"error":"${code}"}, and logs reason ${code}`, async () => {
        const { response, logger } = await BY_CODE[code]!();
        expectStatusCell(row, response);
        expect(JSON.parse(response.body)).toEqual({ error: code });
        expect(deliveryLine(logger)?.attributes).toMatchObject({ status: row.status, reason: code });
      });
    }
    if (row.codes.length === 0) {
      const scenario = BY_CASE.find(([phrase]) => row.case.includes(phrase));
      it(`${row.case.slice(0, 60)}: answers ${row.statusText}, no error code`, async () => {
        const { response, logger } = await scenario![1]();
        expectStatusCell(row, response);
        if (response.body !== '') expect(JSON.parse(response.body)).not.toHaveProperty('error');
        expect(deliveryLine(logger)?.attributes).toMatchObject({ status: row.status });
        expect(deliveryLine(logger)?.attributes).not.toHaveProperty('reason');
      });
    }
  }
});
