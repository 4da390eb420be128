// Generic HMAC: configurable signature header, prefix, encoding, algorithm and signed-content template.
// The built-in schemes that differ from it only in those settings (Shopify, Slack, Zoom, Mobazha, and
// Linear's signature) are specs for the same engine, so the strict parsing lives in one place.
import { randomBytes } from 'node:crypto';
import type { GenericHmacOptions, SchemeName } from '../../../config/schema';
import {
  checkSecrets,
  DIGEST_BYTES,
  freshTimestamp,
  type HmacAlgorithm,
  hmac,
  matchAnySecret,
  optionalHeader,
  type Parsed,
  parseDeliveryId,
  prefixedSignature,
  singleHeader,
} from './primitives';
import { ambiguousBoundary, parseTemplate, type TemplateField, type TemplatePart } from './template';
import type { Scheme, SignInput, VerifyContext, WebhookRequest } from './types';
import { type EventTypeSource, VerifiedDelivery } from './verified-delivery';

export interface HmacSpec {
  readonly name: SchemeName;
  /** Header names as the provider spells them (sign sends them so); verify looks them up lowercased. */
  readonly signatureHeader: string;
  readonly signaturePrefix?: string;
  readonly encoding?: 'hex' | 'base64';
  readonly algorithm?: HmacAlgorithm;
  /** Signed content with `{body}` and optionally `{timestamp}` and `{id}`. */
  readonly template: string;
  /** Required and checked for freshness whenever set, even if the template does not sign it. */
  readonly timestampHeader?: string;
  /** The dedup key when the template signs `{id}`; otherwise unsigned delivery-id metadata. */
  readonly idHeader?: string;
  readonly eventType: EventTypeSource;
}

/** A spec checked and parsed once: lowercase names, template parts, defaults applied. */
export interface CompiledSpec {
  readonly spec: HmacSpec;
  readonly signatureHeader: string;
  readonly prefix: string;
  readonly encoding: 'hex' | 'base64';
  readonly algorithm: HmacAlgorithm;
  readonly parts: readonly TemplatePart[];
  readonly timestampHeader?: string;
  readonly idHeader?: string;
  readonly signsId: boolean;
  readonly signsTimestamp: boolean;
}

export interface HmacMatch {
  readonly secretIndex: number;
  readonly id?: string;
  readonly timestamp?: number;
}

/** Undefined when the spec cannot be verified as written: verification then fails closed. */
function compileSpec(spec: HmacSpec): CompiledSpec | undefined {
  const algorithm = spec.algorithm ?? 'sha256';
  const encoding = spec.encoding ?? 'hex';
  if (!Object.hasOwn(DIGEST_BYTES, algorithm) || (encoding !== 'hex' && encoding !== 'base64'))
    return undefined;
  const optionalText = [spec.signaturePrefix, spec.timestampHeader, spec.idHeader];
  if (typeof spec.signatureHeader !== 'string' || typeof spec.template !== 'string') return undefined;
  if (!optionalText.every((value) => value === undefined || typeof value === 'string')) return undefined;
  const parts = parseTemplate(spec.template);
  const uses = (field: TemplateField) =>
    parts.some((part) => typeof part !== 'string' && part.field === field);
  const signsTimestamp = uses('timestamp');
  const signsId = uses('id');
  if (!uses('body') || (signsTimestamp && !spec.timestampHeader) || (signsId && !spec.idHeader)) {
    return undefined;
  }
  if (ambiguousBoundary(parts)) return undefined;
  return {
    spec,
    signatureHeader: spec.signatureHeader.toLowerCase(),
    prefix: spec.signaturePrefix ?? '',
    encoding,
    algorithm,
    parts,
    timestampHeader: spec.timestampHeader?.toLowerCase(),
    idHeader: spec.idHeader?.toLowerCase(),
    signsId,
    signsTimestamp,
  };
}

/** A spec for a built-in scheme; a typo in one is a bug, found at load rather than per request. */
export function builtInSpec(spec: HmacSpec): CompiledSpec {
  const compiled = compileSpec(spec);
  if (!compiled) throw new TypeError(`${spec.name}: invalid HMAC spec`);
  return compiled;
}

function signedParts(
  compiled: CompiledSpec,
  body: Buffer,
  id: string | undefined,
  timestamp: number | undefined,
): (string | Buffer)[] {
  return compiled.parts.map((part) => {
    if (typeof part === 'string') return part;
    if (part.field === 'body') return body;
    return part.field === 'id' ? (id as string) : String(timestamp);
  });
}

/**
 * Checks id, timestamp and signature in that order, then the MAC against every secret. The body is
 * streamed into the HMAC between the template's other parts, never copied into one buffer.
 */
export function checkHmac(
  compiled: CompiledSpec,
  request: WebhookRequest,
  secrets: readonly string[],
  { nowSeconds, toleranceSeconds }: VerifyContext,
): Parsed<HmacMatch> {
  const noSecret = checkSecrets(secrets);
  if (noSecret) return { ok: false, reason: noSecret };
  let id: string | undefined;
  if (compiled.idHeader) {
    const header = compiled.signsId
      ? singleHeader(request.headers, compiled.idHeader)
      : optionalHeader(request.headers, compiled.idHeader);
    if (!header.ok) return header;
    if (header.value !== undefined) {
      const parsed = parseDeliveryId(header.value);
      if (!parsed.ok) return parsed;
      id = parsed.value;
    }
  }
  let timestamp: number | undefined;
  if (compiled.timestampHeader) {
    const parsed = freshTimestamp(request.headers, compiled.timestampHeader, nowSeconds, toleranceSeconds);
    if (!parsed.ok) return parsed;
    timestamp = parsed.value;
  }
  const header = singleHeader(request.headers, compiled.signatureHeader);
  if (!header.ok) return header;
  const signature = prefixedSignature(
    header.value,
    compiled.prefix,
    compiled.encoding,
    DIGEST_BYTES[compiled.algorithm],
  );
  if (!signature.ok) return signature;

  const parts = signedParts(compiled, request.body, id, timestamp);
  const secretIndex = matchAnySecret(compiled.algorithm, secrets, parts, [signature.value]);
  if (secretIndex < 0) return { ok: false, reason: 'bad_signature' };
  return { ok: true, value: { secretIndex, id, timestamp } };
}

export function deliveryOf(
  compiled: CompiledSpec,
  request: WebhookRequest,
  match: HmacMatch,
): VerifiedDelivery {
  return new VerifiedDelivery(
    request.body,
    compiled.signsId ? { id: match.id as string } : 'body-sha256',
    compiled.spec.eventType,
    request.headers,
    match.id,
    compiled.signsTimestamp ? match.timestamp : undefined,
    match.secretIndex,
  );
}

/** The signature, timestamp and id headers, as the provider would send them. */
export function signHmac(
  compiled: CompiledSpec,
  { body, secret, timestamp, id }: SignInput,
): Record<string, string> {
  const { spec } = compiled;
  const mac = hmac(compiled.algorithm, secret, signedParts(compiled, body, id, timestamp));
  const headers: Record<string, string> = {
    [spec.signatureHeader]: compiled.prefix + mac.toString(compiled.encoding),
  };
  if (spec.timestampHeader) headers[spec.timestampHeader] = String(timestamp);
  if (spec.idHeader) headers[spec.idHeader] = id;
  return headers;
}

/** A whole scheme from a spec, for providers that need nothing beyond it. */
export function hmacScheme(
  compiled: CompiledSpec,
  generateSecret: () => string,
  extraHeaders: (input: SignInput) => Record<string, string>,
): Scheme {
  return {
    name: compiled.spec.name,
    verify(request, secrets, context) {
      const match = checkHmac(compiled, request, secrets, context);
      return match.ok ? { ok: true, delivery: deliveryOf(compiled, request, match.value) } : match;
    },
    sign: (input) => ({ ...signHmac(compiled, input), ...extraHeaders(input) }),
    generateSecret,
  };
}

// Config hands the same resolved options object to every request, so identity is a sound cache key.
const compiledOptions = new WeakMap<object, CompiledSpec | null>();

function specFromOptions(options: GenericHmacOptions): HmacSpec {
  const eventType: EventTypeSource[] = [];
  if (typeof options.eventTypeHeader === 'string')
    eventType.push({ header: options.eventTypeHeader.toLowerCase() });
  if (typeof options.eventTypeField === 'string') eventType.push({ jsonPath: [options.eventTypeField] });
  return {
    name: 'generic-hmac',
    signatureHeader: options.signatureHeader,
    signaturePrefix: options.signaturePrefix,
    encoding: options.encoding,
    algorithm: options.algorithm,
    template: options.template ?? '{body}',
    timestampHeader: options.timestampHeader,
    idHeader: options.idHeader,
    eventType: { firstOf: eventType },
  };
}

/** Parsed once per options object; undefined (fail closed) for anything that is not usable options. */
export function compileOptions(options: unknown): CompiledSpec | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  let compiled = compiledOptions.get(options);
  if (compiled === undefined) {
    compiled = compileSpec(specFromOptions(options as GenericHmacOptions)) ?? null;
    compiledOptions.set(options, compiled);
  }
  return compiled ?? undefined;
}

export const genericHmac: Scheme = {
  name: 'generic-hmac',

  verify(request, secrets, context) {
    const compiled = compileOptions(context.options);
    if (!compiled) return { ok: false, reason: 'bad_scheme_options' };
    const match = checkHmac(compiled, request, secrets, context);
    return match.ok ? { ok: true, delivery: deliveryOf(compiled, request, match.value) } : match;
  },

  sign(input) {
    const compiled = compileOptions(input.options);
    if (!compiled) throw new TypeError('generic-hmac: signing needs valid generic-hmac options');
    const headers = signHmac(compiled, input);
    const eventTypeHeader = (input.options as GenericHmacOptions).eventTypeHeader;
    if (eventTypeHeader && input.eventType) headers[eventTypeHeader] = input.eventType;
    return { ...headers, 'Content-Type': 'application/json' };
  },

  generateSecret: () => randomBytes(32).toString('hex'),
};
