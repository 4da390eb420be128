// Shared by the verify hardening suites (bad inputs, positive controls): deliveries signed independently of
// the product's own `sign`, sent through the real verify handler over the emulators, and one assertion each
// for "rejected, nothing stored, nothing leaked" and "accepted once, bytes intact".
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { beforeEach, expect } from 'vitest';
import { parseConfig } from '../../config';
import type { RejectReason } from '../../lambdas/core/reasons';
import { sha256Hex } from '../../lambdas/core/schemes/primitives';
import type { MetricSink } from '../../lambdas/core/telemetry';
import type { VerifyResponse } from '../../lambdas/verify/verify-handler';
import type { ProvisionedResources } from '../../local/resources';
import { restProxyEvent } from '../../local/rest-proxy-event';
import { type EmulatorContext, useEmulators } from './emulators';
import { type CapturingLogger, StaticSecrets, TestClock, verifyHandlerFor } from './pipeline';

/** Small, so the boundary bodies stay inline in the envelope and the suites stay quick. */
export const MAX_BODY_BYTES = 8192;
export const TOLERANCE_SECONDS = 300;

const HARDENING_CONFIG = parseConfig({
  providers: {
    'standard-webhooks': {
      scheme: 'standard-webhooks',
      maxBodyBytes: MAX_BODY_BYTES,
      toleranceSeconds: TOLERANCE_SECONDS,
    },
    github: { scheme: 'github', maxBodyBytes: MAX_BODY_BYTES },
    stripe: { scheme: 'stripe', toleranceSeconds: TOLERANCE_SECONDS },
    // Same scheme, for bodies that are not JSON (invalid UTF-8): the provider config must allow them.
    'raw-bytes': {
      scheme: 'standard-webhooks',
      requireJson: false,
      contentTypes: ['application/octet-stream'],
      maxBodyBytes: MAX_BODY_BYTES,
    },
  },
});

const whsec = () => `whsec_${randomBytes(32).toString('base64')}`;

// Random per run, so that a leak check cannot be satisfied (or tripped) by a fixed string seen elsewhere.
export const SECRETS = {
  sw: whsec(),
  swPrevious: whsec(),
  swWrong: whsec(),
  github: randomBytes(20).toString('hex'),
  githubPrevious: randomBytes(20).toString('hex'),
  githubWrong: randomBytes(20).toString('hex'),
  stripe: `whsec_${randomBytes(24).toString('hex')}`,
  stripePrevious: `whsec_${randomBytes(24).toString('hex')}`,
  stripeWrong: `whsec_${randomBytes(24).toString('hex')}`,
} as const;

export const DEFAULT_SECRETS: Record<string, string[]> = {
  'standard-webhooks': [SECRETS.sw],
  'raw-bytes': [SECRETS.sw],
  github: [SECRETS.github],
  stripe: [SECRETS.stripe],
};

// ---- independent signers (plain node:crypto, not the scheme modules under test) ----

export function swMac(secret: string, id: string, timestamp: string, body: Buffer): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

function githubMac(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function stripeMac(secret: string, timestamp: string, body: Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** A distinctive string inside a body, so a partial echo of the body is caught too. */
export const canary = () => `body-canary-${randomUUID()}`;

/** A JSON object body with a canary; `extra` fields go first, so `id` etc. can be set. */
export function jsonBody(extra: Record<string, unknown> = {}): Buffer {
  return Buffer.from(JSON.stringify({ ...extra, type: 'invoice.paid', note: canary() }));
}

/** A JSON body of exactly `size` bytes. */
export function bodyOfSize(size: number): Buffer {
  const frame = (pad: string) => `{"type":"invoice.paid","pad":"${pad}"}`;
  return Buffer.from(frame('x'.repeat(size - frame('').length)));
}

const bytes = (body: string | Buffer) => (Buffer.isBuffer(body) ? body : Buffer.from(body));

type HeaderValues = Record<string, string | string[] | undefined>;

interface CommonOptions {
  body?: string | Buffer;
  /** Added last: `undefined` drops a header, an array repeats it. */
  headers?: HeaderValues;
  method?: string;
  provider?: string;
}

export interface SwOptions extends CommonOptions {
  id?: string;
  /** Sent and signed exactly as given, so malformed values are still correctly signed. */
  timestamp?: string | number;
  secret?: string;
  /** Rewrites the signature header from the valid MAC (base64); an array sends the header repeatedly. */
  signature?: (mac: string) => string | string[];
}

export interface GithubOptions extends CommonOptions {
  secret?: string;
  signature?: (mac: string) => string | string[];
}

export interface StripeOptions extends CommonOptions {
  timestamp?: string | number;
  secret?: string;
  /** Rewrites the whole Stripe-Signature value from the timestamp text and the valid MAC (hex). */
  signature?: (timestamp: string, mac: string) => string | string[];
}

function proxyEvent(provider: string, body: Buffer, headers: HeaderValues, method = 'POST') {
  return restProxyEvent({ method, path: `/webhooks/${provider}`, headers, body });
}

// ---- leak detection ----

export interface Needle {
  what: string;
  text: string;
}

/** Below this a string could appear in a log line by coincidence (e.g. `foo`, `v1,`). */
const MIN_NEEDLE = 12;

function secretNeedles(secret: string): Needle[] {
  const needles = [{ what: 'secret', text: secret }];
  const key = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : undefined;
  if (key) {
    needles.push({ what: 'secret key part', text: key });
    needles.push({ what: 'secret key bytes (hex)', text: Buffer.from(key, 'base64').toString('hex') });
  }
  return needles;
}

/** Every string from a request that must never reach a log line or an answer body. */
export function needlesFor(event: APIGatewayProxyEvent, secrets: Iterable<string>): Needle[] {
  const needles: Needle[] = [];
  for (const secret of secrets) needles.push(...secretNeedles(secret));
  const headers = [
    ...Object.entries(event.multiValueHeaders ?? {}),
    ...Object.entries(event.headers ?? {}).map(([name, value]) => [name, [value]] as const),
  ];
  for (const [name, values] of headers) {
    if (!/signature/i.test(name)) continue;
    for (const value of values ?? []) {
      if (value === undefined) continue;
      needles.push({ what: `${name} header`, text: value });
      for (const part of value.split(/[\s,;=]+/)) needles.push({ what: `${name} part`, text: part });
    }
  }
  if (event.body) {
    const body = Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
    needles.push({ what: 'body', text: body.toString('utf8') });
    needles.push({ what: 'body (base64)', text: body.toString('base64') });
    for (const match of body.toString('utf8').matchAll(/body-canary-[0-9a-f-]{36}/g))
      needles.push({ what: 'body canary', text: match[0] });
  }
  return needles.filter((needle) => needle.text.length >= MIN_NEEDLE);
}

/**
 * Which needles occur in the haystack. The haystack is JSON text, where a needle with quotes, backslashes
 * or control characters would appear escaped, so both spellings are searched.
 */
export function findLeaks(haystack: string, needles: readonly Needle[]): string[] {
  const found = new Set<string>();
  for (const { what, text } of needles) {
    const escaped = JSON.stringify(text).slice(1, -1);
    if (haystack.includes(text) || haystack.includes(escaped)) found.add(what);
  }
  return [...found];
}

// ---- the harness ----

class CapturingMetrics implements MetricSink {
  readonly calls: unknown[] = [];
  addMetric(name: string, unit: string, value: number) {
    this.calls.push({ name, unit, value });
  }
  addDimensionedMetric(
    name: string,
    dimension: { name: string; value: string },
    unit: string,
    value: number,
  ) {
    this.calls.push({ name, dimension, unit, value });
  }
  publishStoredMetrics() {}
}

export interface Sent {
  event: APIGatewayProxyEvent;
  response: VerifyResponse;
  logger: CapturingLogger;
  metrics: CapturingMetrics;
  /** Every secret in play: configured for the handler and used to sign. */
  secrets: Set<string>;
}

export interface Expected {
  status: number;
  reason: RejectReason;
}

const ZERO_COUNTS = { visible: 0, inFlight: 0, delayed: 0 };

class Hardening {
  resources!: ProvisionedResources;
  clock!: TestClock;
  /** Secrets used to sign in this test, added to the leak needles even when not configured. */
  private readonly signedWith = new Set<string>();

  constructor(readonly ctx: EmulatorContext) {}

  async reset(): Promise<void> {
    this.resources = await this.ctx.provision();
    this.clock = new TestClock();
    this.signedWith.clear();
  }

  now(): number {
    return this.clock.seconds();
  }

  sw(options: SwOptions = {}): APIGatewayProxyEvent {
    const body = bytes(options.body ?? jsonBody());
    const id = options.id ?? 'msg_hardening_1';
    const timestamp = String(options.timestamp ?? this.now());
    const secret = options.secret ?? SECRETS.sw;
    this.signedWith.add(secret);
    const mac = swMac(secret, id, timestamp, body);
    const headers: HeaderValues = {
      'Content-Type': options.provider === 'raw-bytes' ? 'application/octet-stream' : 'application/json',
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': options.signature ? options.signature(mac) : `v1,${mac}`,
      ...options.headers,
    };
    return proxyEvent(options.provider ?? 'standard-webhooks', body, headers, options.method);
  }

  github(options: GithubOptions = {}): APIGatewayProxyEvent {
    const body = bytes(options.body ?? jsonBody());
    const secret = options.secret ?? SECRETS.github;
    this.signedWith.add(secret);
    const mac = githubMac(secret, body);
    const headers: HeaderValues = {
      'Content-Type': 'application/json',
      'X-GitHub-Event': 'push',
      'X-GitHub-Delivery': randomUUID(),
      'X-Hub-Signature-256': options.signature ? options.signature(mac) : `sha256=${mac}`,
      ...options.headers,
    };
    return proxyEvent(options.provider ?? 'github', body, headers, options.method);
  }

  stripe(options: StripeOptions = {}): APIGatewayProxyEvent {
    const body = bytes(options.body ?? jsonBody({ id: 'evt_hardening_1' }));
    const timestamp = String(options.timestamp ?? this.now());
    const secret = options.secret ?? SECRETS.stripe;
    this.signedWith.add(secret);
    const mac = stripeMac(secret, timestamp, body);
    const headers: HeaderValues = {
      'Content-Type': 'application/json',
      'Stripe-Signature': options.signature ? options.signature(timestamp, mac) : `t=${timestamp},v1=${mac}`,
      ...options.headers,
    };
    return proxyEvent(options.provider ?? 'stripe', body, headers, options.method);
  }

  /** Through a fresh handler, so the logger holds this delivery's lines only. */
  async send(
    event: APIGatewayProxyEvent,
    secrets: Record<string, string[]> = DEFAULT_SECRETS,
  ): Promise<Sent> {
    const metrics = new CapturingMetrics();
    const { handler, logger } = verifyHandlerFor(this.ctx, this.resources, {
      config: HARDENING_CONFIG,
      secrets: new StaticSecrets(secrets),
      clock: this.clock,
      metrics,
    });
    const response = await handler(event);
    const all = new Set([...Object.values(SECRETS), ...Object.values(secrets).flat(), ...this.signedWith]);
    return { event, response, logger, metrics, secrets: all };
  }

  /** Nothing in the queue, the DLQ, the inbox table or the payload bucket. */
  async expectNothingStored(): Promise<void> {
    const { ctx, resources } = this;
    expect(await ctx.countMessages(resources.queueUrl)).toEqual(ZERO_COUNTS);
    expect(await ctx.receiveAll(resources.queueUrl)).toEqual([]);
    expect(await ctx.countMessages(resources.dlqUrl)).toEqual(ZERO_COUNTS);
    expect(await this.inboxCount()).toBe(0);
    const objects = await ctx.clients.s3.send(new ListObjectsV2Command({ Bucket: resources.bucketName }));
    expect(objects.KeyCount ?? 0).toBe(0);
  }

  async inboxCount(): Promise<number> {
    const scan = await this.ctx.clients.dynamodb.send(
      new ScanCommand({ TableName: this.resources.tableName, Select: 'COUNT' }),
    );
    return scan.Count ?? 0;
  }

  /** The answer, the one log line, no leaks anywhere, and nothing stored. */
  async expectRejected(sent: Sent, expected: Expected): Promise<void> {
    expect(sent.response.statusCode).toBe(expected.status);
    expect(JSON.parse(sent.response.body)).toEqual({ error: expected.reason });
    expect(sent.logger.lines).toHaveLength(1);
    expect(sent.logger.lines[0]).toMatchObject({
      level: expected.reason === 'no_secret' ? 'error' : 'info',
      message: 'delivery rejected',
      attributes: { outcome: 'rejected', status: expected.status, reason: expected.reason },
    });
    expectNoLeaks(sent);
    await this.expectNothingStored();
  }

  /** 202, exactly one message carrying the sent bytes, one enqueued inbox record. Returns the envelope. */
  async expectAccepted(sent: Sent): Promise<Record<string, unknown>> {
    const { ctx, resources } = this;
    const sentBytes = Buffer.from(sent.event.body ?? '', sent.event.isBase64Encoded ? 'base64' : 'utf8');
    expect(sent.response.statusCode).toBe(202);
    const { id } = JSON.parse(sent.response.body) as { id: string };
    expect(sent.logger.lines).toHaveLength(1);
    expect(sent.logger.lines[0]).toMatchObject({
      level: 'info',
      message: 'delivery accepted',
      attributes: { outcome: 'accepted', status: 202 },
    });
    expectNoLeaks(sent);
    expect(await ctx.countMessages(resources.queueUrl)).toEqual({ ...ZERO_COUNTS, visible: 1 });
    const messages = await ctx.receiveAll(resources.queueUrl);
    expect(messages).toHaveLength(1);
    const envelope = JSON.parse(messages[0]!.body) as Record<string, unknown>;
    expect(envelope.id).toBe(id);
    expect(Buffer.from(envelope.data_base64 as string, 'base64').toString('hex')).toBe(
      sentBytes.toString('hex'),
    );
    expect(envelope.payloadsha256).toBe(sha256Hex(sentBytes));
    expect(envelope.payloadbytes).toBe(sentBytes.length);
    expect(await this.inboxCount()).toBe(1);
    return envelope;
  }
}

function expectNoLeaks(sent: Sent): void {
  // The answer body is JSON already: stringifying it again would escape an echoed payload twice.
  const { body, ...answer } = sent.response;
  const haystack = [
    JSON.stringify(sent.logger.lines),
    JSON.stringify(sent.metrics.calls),
    JSON.stringify(answer),
    body,
  ].join('\n');
  expect(findLeaks(haystack, needlesFor(sent.event, sent.secrets))).toEqual([]);
}

/** Call at the top of a suite: emulators for the file, fresh resources and clock for every test. */
export function useHardening(): Hardening {
  const harness = new Hardening(useEmulators({ config: HARDENING_CONFIG }));
  beforeEach(() => harness.reset());
  return harness;
}
