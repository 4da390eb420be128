// The verify-handler fuzz: a seeded PRNG, valid deliveries mutated at random (headers, body bytes, body
// encoding, method, route), and an oracle built from the providers' own libraries, which decides from the
// exact bytes and headers the handler will see whether a request is still validly signed. None of our
// scheme code takes part in the verdict, so a bug shared by our signer and verifier cannot hide.
import { createHash } from 'node:crypto';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import type { Config } from '../../config';
import { signedEvent } from './pipeline';
import type { Rng } from './rng';

export const FUZZ_PROVIDERS = ['standard-webhooks', 'github', 'stripe'] as const;
export type FuzzProvider = (typeof FUZZ_PROVIDERS)[number];

export { Rng } from './rng';

interface ProviderSecrets {
  /** What the handler is configured with, newest first (rotation: the previous one still verifies). */
  configured: [current: string, previous: string];
  /** A well-formed secret nobody configured. */
  wrong: string;
}

/** Secrets derived from the seed, so a run is reproducible from its seed alone. */
export function fuzzSecrets(rng: Rng): Record<FuzzProvider, ProviderSecrets> {
  const sw = () => `whsec_${rng.bytes(24).toString('base64')}`;
  const gh = () => rng.bytes(20).toString('hex');
  const st = () => `whsec_${rng.bytes(24).toString('hex')}`;
  return {
    'standard-webhooks': { configured: [sw(), sw()], wrong: sw() },
    github: { configured: [gh(), gh()], wrong: gh() },
    stripe: { configured: [st(), st()], wrong: st() },
  };
}

/** A request as a client sent it, before API Gateway turns it into an event. Header order is kept. */
interface RawRequest {
  method: string;
  /** The `{provider}` path segment. */
  route: string;
  headers: [name: string, value: string][];
  body: Buffer;
  encoding: BodyEncoding;
}

type BodyEncoding =
  | 'base64'
  | 'text'
  | 'latin1-text'
  | 'text-lone-surrogate'
  | 'base64url'
  | 'base64-unpadded'
  | 'base64-mime'
  | 'base64-junk'
  | 'base64-truncated';

export interface FuzzCase {
  index: number;
  provider: FuzzProvider;
  /** How it was signed (secret, clock skew, body kind), for the report. */
  signing: string[];
  mutations: string[];
  /**
   * Signed with a configured secret inside the window, a usable body and an ordinary event type, and only
   * mutations that keep it authentic and acceptable: the answer is decided by the inbox alone (202/200/409).
   */
  expectAccept: boolean;
  /** `{provider}:{dedupKey}` from what was signed, or undefined when the signed body carries no usable id. */
  deliveryKey: string | undefined;
  payloadSha256: string;
  /** The case whose exact event this one re-sends. */
  replayOf?: FuzzCase;
  /** The case whose signed id this one reuses with another body. */
  reuseOf?: FuzzCase;
  event: APIGatewayProxyEvent;
  /** Filled in by the runner. */
  status?: number;
}

interface FuzzEnv {
  rng: Rng;
  config: Config;
  secrets: Record<FuzzProvider, ProviderSecrets>;
  nowSeconds: number;
  /** Makes ids unique per seed. */
  tag: string;
}

export interface CaseOptions {
  /** Earlier cases, all answered. Replays and reuses come from here only, never from the running batch. */
  history: readonly FuzzCase[];
  /** Delivery keys a case of the running batch already uses: two claims of one key in a batch would race. */
  taken: Set<string>;
  replayShare: number;
  reuseShare: number;
  /** Replays prefer these when there are any (the fault run re-sends what got 503). */
  preferReplay?: (earlier: FuzzCase) => boolean;
}

const UNICODE = ['Zoë 🚀 — 東京', 'a\u2028b\u2029c', 'tab\tquote"back\\slash', '<script>', 'ñ€𝄞', 'x'];
const EVENT_TYPES = ['push', 'ping', 'pull_request', 'issues', 'release', 'charge.succeeded', 'invoice.paid'];
// Event types are the sender's text (a signed body field, or GitHub's unsigned X-GitHub-Event header) and
// travel on into the queue message: characters SQS may refuse, and other oddities.
const ODD_EVENT_TYPES = [
  'issues.🚀',
  'type\ufffe',
  'a\u0000b',
  '\ud800',
  'é.créé',
  ' spaced ',
  'x'.repeat(300),
];

type BodyKind = 'json' | 'large' | 'not-json' | 'no-id' | 'empty';

interface BodySpec {
  kind: BodyKind;
  /** The signed id (Stripe puts it in the body). */
  id: string;
  type: string;
  index: number;
}

function makeBody(env: FuzzEnv, provider: FuzzProvider, { kind, id, type, index }: BodySpec): Buffer {
  const { rng } = env;
  const note = `${rng.pick(UNICODE)} ${rng.text(rng.range(0, 40))}`;
  switch (kind) {
    case 'empty':
      return Buffer.alloc(0);
    case 'not-json':
      return Buffer.from(`payload=${encodeURIComponent(note)}&case=${index}`);
    case 'no-id':
      // Authentic but unusable for Stripe (no event id); an array body for the others.
      return Buffer.from(
        provider === 'stripe'
          ? JSON.stringify({ id: rng.pick(['', 'evt with space', 'evt.dot', 7]), type: 'x', n: index })
          : JSON.stringify([index, note]),
      );
    default: {
      // Over the inline limit, so the payload goes through S3.
      const pad = kind === 'large' ? rng.bytes(rng.range(100_000, 150_000)).toString('hex') : undefined;
      const data = { n: index, note, ...(pad === undefined ? {} : { pad }) };
      if (provider === 'stripe') return Buffer.from(JSON.stringify({ id, object: 'event', type, data }));
      if (provider === 'github') return Buffer.from(JSON.stringify({ action: 'opened', data }));
      return Buffer.from(JSON.stringify({ type, data }));
    }
  }
}

function rawFrom(event: APIGatewayProxyEvent, provider: string): RawRequest {
  const headers: [string, string][] = [];
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {}))
    for (const value of values ?? []) headers.push([name, value]);
  return {
    method: event.httpMethod,
    route: provider,
    headers,
    body: event.body ? Buffer.from(event.body, 'base64') : Buffer.alloc(0),
    encoding: 'base64',
  };
}

function encodeBody(rng: Rng, body: Buffer, encoding: BodyEncoding): string {
  const b64 = body.toString('base64');
  const at = (text: string) => rng.int(text.length + 1);
  switch (encoding) {
    case 'base64':
      return b64;
    case 'text':
      return body.toString('utf8');
    case 'latin1-text':
      return body.toString('latin1');
    case 'text-lone-surrogate': {
      const text = body.toString('utf8');
      const i = at(text);
      return `${text.slice(0, i)}${rng.pick(['\ud800', '\udfff'])}${text.slice(i)}`;
    }
    case 'base64url':
      return body.toString('base64url');
    case 'base64-unpadded':
      return b64.replace(/=+$/, '');
    case 'base64-mime':
      return b64.replace(/.{1,76}/g, '$&\r\n');
    case 'base64-junk': {
      const i = at(b64);
      return `${b64.slice(0, i)}${rng.pick(['!', '*', ' ', '\t', '=', '==', '-', '_', '.', 'é'])}${b64.slice(i)}`;
    }
    case 'base64-truncated':
      return b64.slice(0, Math.max(0, b64.length - rng.range(1, 3)));
  }
}

/** The API Gateway REST proxy event for a raw request, shaped as restProxyEvent shapes it. */
function toEvent(rng: Rng, template: APIGatewayProxyEvent, raw: RawRequest): APIGatewayProxyEvent {
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of raw.headers) {
    const values = multiValueHeaders[name] ?? [];
    values.push(value);
    multiValueHeaders[name] = values;
  }
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(multiValueHeaders)) headers[name] = values[values.length - 1]!;
  const path = `/webhooks/${raw.route}`;
  const body = raw.body.length === 0 ? null : encodeBody(rng, raw.body, raw.encoding);
  return {
    ...template,
    httpMethod: raw.method,
    path,
    headers,
    multiValueHeaders,
    pathParameters: raw.route === '' ? null : { provider: raw.route },
    body,
    isBase64Encoded: body !== null && !/text/.test(raw.encoding),
    requestContext: { ...template.requestContext, httpMethod: raw.method, path },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Mutations

interface MutationContext {
  rng: Rng;
  provider: FuzzProvider;
  config: Config;
}

interface Mutation {
  name: string;
  /** Keeps the request authentic and acceptable (expected 202); the oracle still has the last word. */
  benign?: boolean;
  weight: number;
  apply(raw: RawRequest, ctx: MutationContext): void;
}

const SIGNATURE_HEADERS: Record<FuzzProvider, readonly string[]> = {
  'standard-webhooks': [
    'webhook-id',
    'webhook-timestamp',
    'webhook-signature',
    'svix-id',
    'svix-timestamp',
    'svix-signature',
  ],
  github: ['x-hub-signature-256', 'x-github-delivery', 'x-github-event'],
  stripe: ['stripe-signature'],
};

/** The header that carries the signature itself, by provider. */
export const SIGNATURE_HEADER: Record<FuzzProvider, readonly string[]> = {
  'standard-webhooks': ['webhook-signature', 'svix-signature'],
  github: ['x-hub-signature-256'],
  stripe: ['stripe-signature'],
};

function indexOfHeader(raw: RawRequest, names: readonly string[]): number {
  return raw.headers.findIndex(([name]) => names.includes(name.toLowerCase()));
}

/** A header to damage: usually one the scheme reads, sometimes any. */
function targetHeader(raw: RawRequest, ctx: MutationContext): number {
  if (raw.headers.length === 0) return -1;
  const relevant = raw.headers
    .map(([name], i) => [name.toLowerCase(), i] as const)
    .filter(([name]) => SIGNATURE_HEADERS[ctx.provider].includes(name) || name === 'content-type');
  if (relevant.length > 0 && ctx.rng.chance(0.8)) return ctx.rng.pick(relevant)[1];
  return ctx.rng.int(raw.headers.length);
}

function mutateValue(raw: RawRequest, i: number, change: (value: string) => string): void {
  const entry = raw.headers[i];
  if (entry) entry[1] = change(entry[1]);
}

function insertAt(body: Buffer, at: number, bytes: Buffer): Buffer {
  return Buffer.concat([body.subarray(0, at), bytes, body.subarray(at)]);
}

function randomCase(rng: Rng, text: string): string {
  let out = '';
  for (const ch of text) out += rng.chance(0.5) ? ch.toUpperCase() : ch.toLowerCase();
  return out === text ? text.toUpperCase() : out;
}

const NON_ASCII = ['é', 'ÿ', '🚀', '\ud800', '\u0000', '\r\n', '\n', '\u2028', '\u00a0', '\x7f', '\u200b'];
const PRINTABLE =
  ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~';

/** Rewrites the signature header's value with a provider-aware edit; false when there is no such header. */
function editSignature(raw: RawRequest, ctx: MutationContext, edit: (value: string) => string): boolean {
  const i = indexOfHeader(raw, SIGNATURE_HEADER[ctx.provider]);
  if (i < 0) return false;
  mutateValue(raw, i, edit);
  return true;
}

function noise(raw: RawRequest, rng: Rng): void {
  const name = rng.pick([
    'X-Fuzz-Noise',
    'User-Agent',
    'X-Forwarded-For',
    'Accept-Encoding',
    'X-Amzn-Trace-Id',
  ]);
  raw.headers.push([name, rng.text(rng.range(1, 30), PRINTABLE).trim() || 'x']);
}

const MUTATIONS: readonly Mutation[] = [
  // Body bytes.
  {
    name: 'body.flip-bit',
    weight: 4,
    apply: (raw, { rng }) => {
      const body = Buffer.from(raw.body.length === 0 ? ' ' : raw.body);
      const i = rng.int(body.length);
      body[i] = (body[i] as number) ^ (1 << rng.int(8));
      raw.body = body;
    },
  },
  {
    name: 'body.replace-byte',
    weight: 3,
    apply: (raw, { rng }) => {
      const body = Buffer.from(raw.body.length === 0 ? ' ' : raw.body);
      body[rng.int(body.length)] = rng.int(256);
      raw.body = body;
    },
  },
  {
    name: 'body.insert-bytes',
    weight: 3,
    apply: (raw, { rng }) => {
      raw.body = insertAt(raw.body, rng.int(raw.body.length + 1), rng.bytes(rng.range(1, 4)));
    },
  },
  {
    name: 'body.delete-bytes',
    weight: 3,
    apply: (raw, { rng }) => {
      const at = rng.int(raw.body.length + 1);
      raw.body = Buffer.concat([raw.body.subarray(0, at), raw.body.subarray(at + rng.range(1, 4))]);
    },
  },
  {
    name: 'body.truncate',
    weight: 3,
    apply: (raw, { rng }) => {
      raw.body = raw.body.subarray(0, rng.chance(0.2) ? 0 : rng.int(raw.body.length));
    },
  },
  {
    name: 'body.append-whitespace',
    weight: 2,
    apply: (raw, { rng }) => {
      raw.body = Buffer.concat([raw.body, Buffer.from(rng.pick(['\n', '\r\n', ' ', '\t', '\u2028']))]);
    },
  },
  {
    name: 'body.invalid-utf8',
    weight: 3,
    apply: (raw, { rng }) => {
      const bad = rng.pick([
        [0xff],
        [0xc3],
        [0xed, 0xa0, 0x80],
        [0xc0, 0xaf],
        [0xf8, 0x88, 0x80, 0x80],
        [0x80],
      ]);
      raw.body = insertAt(raw.body, rng.int(raw.body.length + 1), Buffer.from(bad));
    },
  },
  {
    name: 'body.line-separator',
    weight: 2,
    apply: (raw, { rng }) => {
      raw.body = insertAt(
        raw.body,
        rng.int(raw.body.length + 1),
        Buffer.from(rng.pick(['\u2028', '\u2029'])),
      );
    },
  },
  {
    name: 'body.nul-or-bom',
    weight: 1,
    apply: (raw, { rng }) => {
      raw.body = rng.chance(0.5)
        ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), raw.body])
        : insertAt(raw.body, rng.int(raw.body.length + 1), Buffer.from([0]));
    },
  },
  {
    // What a framework that parses and re-serializes does; compact JSON may come back byte-identical.
    name: 'body.reserialize',
    weight: 2,
    apply: (raw, { rng }) => {
      try {
        const parsed = JSON.parse(raw.body.toString('utf8'));
        raw.body = Buffer.from(JSON.stringify(parsed, null, rng.pick([0, 2])));
      } catch {
        raw.body = Buffer.concat([raw.body, Buffer.from('\n')]);
      }
    },
  },
  {
    name: 'body.oversize',
    weight: 0.15,
    apply: (raw, ctx) => {
      const max = ctx.config.providers[ctx.provider]!.maxBodyBytes;
      raw.body = Buffer.concat([raw.body, Buffer.alloc(max + ctx.rng.range(1, 100) - raw.body.length, 0x20)]);
    },
  },

  // Header values and names.
  {
    name: 'header.truncate',
    weight: 3,
    apply: (raw, ctx) => mutateValue(raw, targetHeader(raw, ctx), (v) => v.slice(0, ctx.rng.int(v.length))),
  },
  {
    name: 'header.flip-char',
    weight: 4,
    apply: (raw, ctx) =>
      mutateValue(raw, targetHeader(raw, ctx), (v) => {
        const i = ctx.rng.int(Math.max(v.length, 1));
        return v.slice(0, i) + ctx.rng.pick([...PRINTABLE]) + v.slice(i + 1);
      }),
  },
  {
    name: 'header.whitespace',
    weight: 2,
    apply: (raw, ctx) =>
      mutateValue(raw, targetHeader(raw, ctx), (v) => {
        const ws = ctx.rng.pick([' ', '\t', '  ']);
        const where = ctx.rng.int(3);
        if (where === 0) return ws + v;
        if (where === 1) return v + ws;
        const i = ctx.rng.int(v.length + 1);
        return v.slice(0, i) + ws + v.slice(i);
      }),
  },
  {
    name: 'header.name-case',
    benign: true,
    weight: 3,
    apply: (raw, ctx) => {
      const entry = raw.headers[targetHeader(raw, ctx)];
      if (entry) entry[0] = randomCase(ctx.rng, entry[0]);
    },
  },
  {
    // API Gateway lists every copy in multiValueHeaders and the last one in headers.
    name: 'header.repeat',
    weight: 2,
    apply: (raw, ctx) => {
      const entry = raw.headers[targetHeader(raw, ctx)];
      if (!entry) return;
      const name = ctx.rng.chance(0.3) ? randomCase(ctx.rng, entry[0]) : entry[0];
      const value = ctx.rng.chance(0.5) ? entry[1] : `${entry[1]}x`;
      raw.headers.splice(ctx.rng.int(raw.headers.length + 1), 0, [name, value]);
    },
  },
  {
    name: 'header.delete',
    weight: 2,
    apply: (raw, ctx) => {
      const i = targetHeader(raw, ctx);
      if (i >= 0) raw.headers.splice(i, 1);
    },
  },
  {
    name: 'header.non-ascii',
    weight: 2,
    apply: (raw, ctx) =>
      mutateValue(raw, targetHeader(raw, ctx), (v) => {
        const i = ctx.rng.int(v.length + 1);
        const junk = ctx.rng.pick(NON_ASCII);
        return ctx.rng.chance(0.2) ? junk : v.slice(0, i) + junk + v.slice(i);
      }),
  },
  {
    name: 'header.huge',
    weight: 1,
    apply: (raw, ctx) =>
      mutateValue(raw, targetHeader(raw, ctx), (v) =>
        ctx.rng.chance(0.5) ? v.repeat(Math.ceil(65_536 / Math.max(v.length, 1))) : v + 'A'.repeat(100_000),
      ),
  },
  {
    name: 'header.empty',
    weight: 1,
    apply: (raw, ctx) => mutateValue(raw, targetHeader(raw, ctx), () => ''),
  },
  {
    name: 'header.noise',
    benign: true,
    weight: 2,
    apply: (raw, { rng }) => noise(raw, rng),
  },
  {
    name: 'content-type.variant',
    benign: true,
    weight: 2,
    apply: (raw, { rng }) => {
      const i = indexOfHeader(raw, ['content-type']);
      const value = rng.pick([
        'application/json; charset=utf-8',
        'Application/JSON',
        'application/json;charset=UTF-8',
      ]);
      if (i >= 0) mutateValue(raw, i, () => value);
      else raw.headers.push(['Content-Type', value]);
    },
  },
  {
    name: 'content-type.other',
    weight: 1.5,
    apply: (raw, { rng }) => {
      const i = indexOfHeader(raw, ['content-type']);
      const value = rng.pick([
        'text/plain',
        'application/json5',
        'application/x-www-form-urlencoded',
        'json',
        '*/*',
      ]);
      if (i >= 0) mutateValue(raw, i, () => value);
    },
  },

  // Signature-aware edits.
  {
    name: 'sig.timestamp-shift',
    weight: 2,
    apply: (raw, ctx) => {
      const delta = ctx.rng.pick([1, -1, 5, -5, 299, -299, 301, -301, 86_400, -86_400, 1_000_000_000]);
      const shift = (text: string) => (/^\d+$/.test(text) ? String(Number(text) + delta) : `${text}1`);
      if (ctx.provider === 'standard-webhooks') {
        const i = indexOfHeader(raw, ['webhook-timestamp', 'svix-timestamp']);
        if (i >= 0) mutateValue(raw, i, shift);
      } else if (ctx.provider === 'stripe') {
        editSignature(raw, ctx, (v) => v.replace(/(^|,)t=([^,]*)/, (_m, lead, t) => `${lead}t=${shift(t)}`));
      } else {
        // GitHub signs no timestamp: damage the last signature digit instead.
        editSignature(raw, ctx, (v) => `${v.slice(0, -1)}${v.endsWith('0') ? '1' : '0'}`);
      }
    },
  },
  {
    name: 'sig.prefix',
    weight: 1.5,
    apply: (raw, ctx) => {
      const edits: Record<FuzzProvider, readonly ((v: string) => string)[]> = {
        github: [
          (v) => v.replace('sha256=', 'sha1='),
          (v) => v.replace('sha256=', 'SHA256='),
          (v) => v.slice(7),
        ],
        stripe: [(v) => v.replace('v1=', 'V1='), (v) => v.replace('v1=', 'v2='), (v) => v.replace(',', ', ')],
        'standard-webhooks': [
          (v) => v.replace('v1,', 'v2,'),
          (v) => v.replace('v1,', 'V1,'),
          (v) => v.replace('v1,', 'v1='),
        ],
      };
      editSignature(raw, ctx, ctx.rng.pick(edits[ctx.provider]));
    },
  },
  {
    // The same MAC spelled differently: uppercase hex, or base64 whose unused low bits differ. Authentic, but
    // the peers compare strings, so an acceptance lands in the "non-canonical" allowance, not in a pass.
    name: 'sig.non-canonical',
    weight: 0.5,
    apply: (raw, ctx) => {
      if (ctx.provider === 'standard-webhooks') {
        editSignature(raw, ctx, (v) =>
          v.replace(/v1,([A-Za-z0-9+/]{42})([A-Za-z0-9+/])=/, (_m, head, last: string) => {
            const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
            const bits = alphabet.indexOf(last);
            return `v1,${head}${alphabet[(bits & 0b111100) | ((bits + 1 + ctx.rng.int(3)) & 0b11)]}=`;
          }),
        );
      } else {
        editSignature(raw, ctx, (v) => v.replace(/[0-9a-f]{64}/, (hex) => hex.toUpperCase()));
      }
    },
  },
  {
    name: 'sig.extra-signature',
    benign: true,
    weight: 1.5,
    apply: (raw, ctx) => {
      const { rng } = ctx;
      if (ctx.provider === 'standard-webhooks')
        editSignature(raw, ctx, (v) => `v1,${rng.bytes(32).toString('base64')} ${v}`);
      else if (ctx.provider === 'stripe')
        editSignature(raw, ctx, (v) => v.replace(/(^|,)v1=/, `$1v1=${rng.bytes(32).toString('hex')},v1=`));
      else raw.headers.push(['X-Hub-Signature', `sha1=${rng.bytes(20).toString('hex')}`]);
    },
  },
  {
    name: 'sig.unknown-version',
    benign: true,
    weight: 1,
    apply: (raw, ctx) => {
      const { rng } = ctx;
      if (ctx.provider === 'standard-webhooks')
        editSignature(raw, ctx, (v) => `${v} v1a,${rng.bytes(64).toString('base64')}`);
      else if (ctx.provider === 'stripe')
        editSignature(raw, ctx, (v) => `${v},v0=${rng.bytes(32).toString('hex')}`);
      else noise(raw, rng);
    },
  },
  {
    // Order within the header and the Svix header family are the sender's choice; GitHub's delivery id and
    // event name are unsigned metadata.
    name: 'sig.equivalent',
    benign: true,
    weight: 1.5,
    apply: (raw, ctx) => {
      const { rng } = ctx;
      if (ctx.provider === 'stripe') {
        editSignature(raw, ctx, (v) => v.split(',').reverse().join(','));
      } else if (ctx.provider === 'standard-webhooks') {
        const all = raw.headers.filter(([name]) => name.toLowerCase().startsWith('webhook-'));
        for (const entry of all) entry[0] = entry[0].replace(/^webhook-/i, rng.pick(['svix-', 'Svix-']));
      } else {
        const i = indexOfHeader(raw, ['x-github-delivery']);
        const id = `${rng.bytes(4).toString('hex')}-${rng.bytes(2).toString('hex')}-${rng.bytes(6).toString('hex')}`;
        if (i >= 0) mutateValue(raw, i, () => id);
      }
    },
  },
  {
    name: 'sig.id-change',
    weight: 1,
    apply: (raw, ctx) => {
      const { rng } = ctx;
      const ids = ['msg_other', 'msg with space', 'msg.dot', 'x'.repeat(256), 'msg_é', ''];
      const names = ctx.provider === 'standard-webhooks' ? ['webhook-id', 'svix-id'] : ['x-github-delivery'];
      const i = indexOfHeader(raw, names);
      if (i >= 0) mutateValue(raw, i, () => rng.pick(ids));
      else if (ctx.provider === 'stripe') editSignature(raw, ctx, (v) => v.replace('t=', 'id=msg_other,t='));
    },
  },

  // Request line and body encoding.
  {
    name: 'request.method',
    weight: 1.5,
    apply: (raw, { rng }) => {
      raw.method = rng.pick(['GET', 'PUT', 'post', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', '']);
    },
  },
  {
    name: 'request.route',
    weight: 1.5,
    apply: (raw, ctx) => {
      const others = FUZZ_PROVIDERS.filter((p) => p !== ctx.provider);
      // Names an object already has (constructor, __proto__) must be unknown providers too.
      raw.route = ctx.rng.pick([
        ...others,
        'gitlab',
        ctx.provider.toUpperCase(),
        `${ctx.provider} `,
        '',
        '..',
        'constructor',
        '__proto__',
        'toString',
      ]);
    },
  },
  {
    // An API without binaryMediaTypes hands the body over as UTF-8 text: same bytes for a UTF-8 body.
    name: 'encoding.text',
    benign: true,
    weight: 1.5,
    apply: (raw) => {
      raw.encoding = 'text';
    },
  },
  {
    name: 'encoding.other',
    weight: 2.5,
    apply: (raw, { rng }) => {
      raw.encoding = rng.pick([
        'latin1-text',
        'text-lone-surrogate',
        'base64url',
        'base64-unpadded',
        'base64-mime',
        'base64-junk',
        'base64-truncated',
      ] as const);
    },
  },
];

const BENIGN = MUTATIONS.filter((m) => m.benign);

// ---------------------------------------------------------------------------------------------------------
// Cases

function pickReplay(rng: Rng, options: CaseOptions): FuzzCase | undefined {
  const preferred = options.preferReplay ? options.history.filter(options.preferReplay) : [];
  const pool = preferred.length > 0 && rng.chance(0.7) ? preferred : options.history;
  for (let tries = 0; tries < 5 && pool.length > 0; tries++) {
    const candidate = rng.pick(pool);
    const original = candidate.replayOf ?? candidate;
    if (original.deliveryKey === undefined || !options.taken.has(original.deliveryKey)) return original;
  }
  return undefined;
}

function skewFor(rng: Rng, tolerance: number): { skew: number; absolute?: number; label: string } {
  const kind = rng.weighted([
    ['none', 75],
    ['inside', 10],
    ['edge', 7],
    ['outside', 5],
    ['absurd', 3],
  ] as const);
  if (kind === 'none') return { skew: 0, label: 'ts:now' };
  if (kind === 'inside') return { skew: rng.range(-tolerance, tolerance), label: 'ts:inside' };
  if (kind === 'edge') {
    const skew = rng.pick([-1, 1]) * (tolerance + rng.range(-1, 2));
    return { skew, label: `ts:edge${skew > 0 ? '+' : ''}${skew}` };
  }
  if (kind === 'outside')
    return { skew: rng.pick([-1, 1]) * rng.range(tolerance + 1, 1_000_000), label: 'ts:outside' };
  const absolute = rng.pick([0, 1, -1, 9_999_999_999, 10_000_000_000]);
  return { skew: 0, absolute, label: `ts:absurd=${absolute}` };
}

export function makeCase(env: FuzzEnv, index: number, options: CaseOptions): FuzzCase {
  const { rng, config } = env;
  if (options.history.length > 0 && rng.chance(options.replayShare)) {
    const original = pickReplay(rng, options);
    if (original) {
      if (original.deliveryKey !== undefined) options.taken.add(original.deliveryKey);
      return {
        ...original,
        index,
        signing: [`replay of #${original.index}`],
        mutations: [],
        expectAccept: false,
        replayOf: original,
        reuseOf: undefined,
        status: undefined,
      };
    }
  }

  // Reuse an earlier signed id with another body: an authentic conflict (409) if the first was claimed.
  let reuseOf: FuzzCase | undefined;
  if (rng.chance(options.reuseShare)) {
    const candidate = options.history.length > 0 ? rng.pick(options.history) : undefined;
    const source = candidate?.replayOf ?? candidate;
    if (
      source &&
      source.provider !== 'github' &&
      source.deliveryKey !== undefined &&
      !options.taken.has(source.deliveryKey)
    )
      reuseOf = source;
  }
  const provider = reuseOf?.provider ?? rng.pick(FUZZ_PROVIDERS);
  const settings = config.providers[provider]!;
  const signing: string[] = reuseOf ? [`reuse of #${reuseOf.index}`] : [];

  const secrets = env.secrets[provider];
  const secretKind = rng.weighted([
    ['current', 70],
    ['previous', 15],
    ['wrong', 10],
    ['other-provider', 5],
  ] as const);
  const otherProvider: Record<FuzzProvider, FuzzProvider> = {
    // A stripe `whsec_<hex>` secret is also well-formed base64, so Standard Webhooks can sign with it.
    'standard-webhooks': 'stripe',
    github: 'standard-webhooks',
    stripe: 'github',
  };
  const secret =
    secretKind === 'current'
      ? secrets.configured[0]
      : secretKind === 'previous'
        ? secrets.configured[1]
        : secretKind === 'wrong'
          ? secrets.wrong
          : env.secrets[otherProvider[provider]].configured[0];
  signing.push(`secret:${secretKind}`);

  const timed = provider !== 'github';
  const skew = timed ? skewFor(rng, settings.toleranceSeconds) : { skew: 0, label: 'ts:unsigned' };
  const timestamp = skew.absolute ?? env.nowSeconds + skew.skew;
  signing.push(skew.label);

  const bodyKind: BodyKind = reuseOf
    ? 'json'
    : rng.weighted([
        ['json', 88],
        ['large', 1.5],
        ['not-json', 3],
        ['no-id', 3],
        ['empty', 1],
      ] as const);
  signing.push(`body:${bodyKind}`);

  const signedId = reuseOf
    ? (reuseOf.deliveryKey as string).slice(provider.length + 1)
    : `${provider === 'stripe' ? 'evt' : 'msg'}_${env.tag}_${index}`;
  const odd = rng.chance(0.03);
  const eventType = rng.pick(odd ? ODD_EVENT_TYPES : EVENT_TYPES);
  if (odd) signing.push(`type:${JSON.stringify(eventType).slice(0, 40)}`);
  const body = makeBody(env, provider, { kind: bodyKind, id: signedId, type: eventType, index });
  const payloadSha256 = createHash('sha256').update(body).digest('hex');
  const usable = bodyKind === 'json' || bodyKind === 'large';
  const deliveryKey =
    provider === 'github'
      ? `${provider}:${payloadSha256}`
      : provider === 'standard-webhooks' || usable
        ? `${provider}:${signedId}`
        : undefined;
  if (deliveryKey !== undefined) options.taken.add(deliveryKey);

  const signed = signedEvent(provider, config, {
    body,
    secret,
    timestamp,
    id: signedId,
    eventType,
  });

  // 6% untouched controls, 8% only mutations that keep it valid, the rest 1-3 of anything. Most end before
  // any AWS call, which keeps 5,000 cases affordable.
  const mode = rng.weighted([
    ['control', 6],
    ['benign', 8],
    ['any', 86],
  ] as const);
  const count = mode === 'control' ? 0 : rng.range(1, 3);
  const pool = mode === 'benign' ? BENIGN : MUTATIONS;
  const raw = rawFrom(signed, provider);
  const applied: Mutation[] = [];
  for (let i = 0; i < count; i++) {
    const mutation = rng.weighted(pool.map((m) => [m, m.weight] as const));
    mutation.apply(raw, { rng, provider, config });
    applied.push(mutation);
  }
  const fresh = !timed || (skew.absolute === undefined && Math.abs(skew.skew) <= settings.toleranceSeconds);
  return {
    index,
    provider,
    signing,
    mutations: applied.map((m) => m.name),
    // An odd event type may fairly be accepted or refused as unusable (400): only "not 5xx" is asserted.
    expectAccept:
      (secretKind === 'current' || secretKind === 'previous') &&
      fresh &&
      usable &&
      !odd &&
      applied.every((m) => m.benign),
    deliveryKey,
    payloadSha256,
    reuseOf,
    event: toEvent(rng, signed, raw),
  };
}

// ---------------------------------------------------------------------------------------------------------
// The oracle

/** What the handler gets out of an event, decoded independently of our front-door code. */
interface SeenRequest {
  route: string | undefined;
  body: Buffer;
  /** Lowercase name -> every value, from every spelling of the name. */
  headers: Map<string, string[]>;
}

export function seenByHandler(event: APIGatewayProxyEvent): SeenRequest {
  const headers = new Map<string, string[]>();
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
    const key = name.toLowerCase();
    headers.set(key, [...(headers.get(key) ?? []), ...(values ?? [])]);
  }
  return {
    route: event.pathParameters?.provider,
    // What API Gateway's decoding leaves: Node's base64 decoder skips what it cannot read.
    body: event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0),
    headers,
  };
}

/** One header as an HTTP stack would hand it to the peer library: repeated copies joined with ", ". */
function single(seen: SeenRequest, name: string): string | undefined {
  const values = seen.headers.get(name);
  return values && values.length > 0 ? values.join(', ') : undefined;
}

/** The peers read `Date.now()` for the freshness check; the handler reads the test clock. */
function atTime<T>(nowMs: number, fn: () => T): T {
  const realNow = Date.now;
  Date.now = () => nowMs;
  try {
    return fn();
  } finally {
    Date.now = realNow;
  }
}

const stripeSignature = new Stripe('sk_test_fuzz').webhooks.signature!;

// Built once per secret: each decodes its base64 key in the constructor. (Both classes are named Webhook.)
const peers = new Map<unknown, Map<string, unknown>>();
function peer<T>(kind: new (secret: string) => T, secret: string): T {
  const bySecret = peers.get(kind) ?? new Map<string, unknown>();
  peers.set(kind, bySecret);
  let instance = bySecret.get(secret) as T | undefined;
  if (instance === undefined) {
    instance = new kind(secret);
    bySecret.set(secret, instance);
  }
  return instance;
}

/**
 * True when a peer library accepts the request as signed by one of the provider's configured secrets,
 * fresh at `nowMs`. Peers are lenient in places (Stripe has no future bound, Standard Webhooks parses the
 * timestamp with parseInt, none needs JSON): the handler may refuse what they accept, never the reverse.
 */
export async function peerAccepts(
  seen: SeenRequest,
  secrets: Record<string, readonly string[]>,
  config: Config,
  nowMs: number,
): Promise<boolean> {
  const provider = seen.route;
  if (
    provider === undefined ||
    !Object.hasOwn(secrets, provider) ||
    !Object.hasOwn(config.providers, provider)
  )
    return false;
  const keys = secrets[provider] as readonly string[];
  const toleranceSeconds = (config.providers[provider] as { toleranceSeconds: number }).toleranceSeconds;
  if (provider === 'github') {
    const signature = single(seen, 'x-hub-signature-256');
    if (signature === undefined) return false;
    // Octokit takes the payload as a string (UTF-8): exact for UTF-8 bodies, which are all it can check.
    const payload = seen.body.toString('utf8');
    for (const key of keys) if (await octokitVerify(key, payload, signature).catch(() => false)) return true;
    return false;
  }
  if (provider === 'stripe') {
    const header = single(seen, 'stripe-signature');
    if (header === undefined) return false;
    return keys.some((key) => {
      try {
        return stripeSignature.verifyHeader(seen.body, header, key, toleranceSeconds, undefined, nowMs);
      } catch {
        return false;
      }
    });
  }
  if (provider === 'standard-webhooks') {
    const headers: Record<string, string> = {};
    for (const name of seen.headers.keys()) headers[name] = single(seen, name) as string;
    // standardwebhooks reads only webhook-*; svix prefers svix-* per header, and reads what standardwebhooks
    // reads when there is none. Either one accepting means a holder of the secret signed what it read.
    const svixNames = [...seen.headers.keys()].some((name) => name.startsWith('svix-'));
    return atTime(nowMs, () =>
      keys.some((key) => {
        try {
          peer(StandardWebhook, key).verify(seen.body, headers, { jsonParse: false });
          return true;
        } catch {
          if (!svixNames) return false;
        }
        try {
          peer(SvixWebhook, key).verify(seen.body, headers);
          return true;
        } catch (error) {
          // svix always parses JSON, after the signature matched.
          return error instanceof SyntaxError;
        }
      }),
    );
  }
  return false;
}

/**
 * The same request with each signature re-spelled canonically (lowercase hex, base64 re-encoded from its
 * bytes), or undefined if nothing changes. Peers compare signature strings, so they refuse a non-canonical
 * spelling of the correct MAC that a byte comparison accepts; that is malleability, not a forgery.
 */
export function withCanonicalSignatures(seen: SeenRequest): SeenRequest | undefined {
  const headers = new Map(seen.headers);
  let changed = false;
  const rewrite = (name: string, edit: (value: string) => string) => {
    const values = headers.get(name);
    if (!values) return;
    const next = values.map(edit);
    if (next.some((v, i) => v !== values[i])) changed = true;
    headers.set(name, next);
  };
  const lowerHex = (v: string) =>
    v.replace(/\b(sha256=|v1=)([0-9a-fA-F]{64})\b/g, (_m, p, hex) => p + hex.toLowerCase());
  rewrite('x-hub-signature-256', lowerHex);
  rewrite('stripe-signature', lowerHex);
  const rebase = (v: string) =>
    v
      .split(' ')
      .map((entry) => {
        const match = /^v1,([A-Za-z0-9+/]{43}=)$/.exec(entry);
        return match ? `v1,${Buffer.from(match[1]!, 'base64').toString('base64')}` : entry;
      })
      .join(' ');
  rewrite('webhook-signature', rebase);
  rewrite('svix-signature', rebase);
  return changed ? { ...seen, headers } : undefined;
}

/** A short, reproducible description of a case for a failure message. */
export function describeCase(seed: number, c: FuzzCase, detail: string): string {
  const e = c.event;
  const headers = JSON.stringify(e.multiValueHeaders, (_k, v) =>
    typeof v === 'string' && v.length > 120 ? `${v.slice(0, 120)}...(${v.length})` : v,
  );
  const body =
    e.body === null ? 'null' : e.body.length > 200 ? `${e.body.slice(0, 200)}...(${e.body.length})` : e.body;
  return [
    `FUZZ_SEED=${seed} case #${c.index} ${c.provider}: ${detail}`,
    `  signing: ${c.signing.join(', ')}; mutations: ${c.mutations.join(', ') || '(none)'}`,
    `  ${e.httpMethod} ${e.path} isBase64Encoded=${e.isBase64Encoded}`,
    `  headers: ${headers}`,
    `  body: ${JSON.stringify(body)}`,
  ].join('\n');
}
