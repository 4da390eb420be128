// The promises every scheme keeps, run against each one. Scheme files add their own vectors and
// peer-library cross-checks next to this.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeHeaders } from '../../lambdas/core/headers';
import type { Scheme, SchemeOptions, VerifyContext } from '../../lambdas/core/schemes/types';

export interface SchemeFixture {
  scheme: Scheme;
  options?: SchemeOptions;
  /** The header holding the signature, as the provider spells it. */
  signatureHeader: string;
  /** Replaces the signature value(s) in that header's text, keeping its framing (prefix, t=...). */
  withSignature: (headerValue: string, signature: string) => string;
  /** Signature encoding in the header, for building malformed values. */
  encoding: 'hex' | 'base64';
  /** Header with the signed timestamp, when the scheme has one in a header. */
  timestampHeader?: string;
  /** Header with a signed id, when the scheme has one. */
  idHeader?: string;
  /** A header value holding only unknown signature versions. */
  unknownVersionsOnly?: (headerValue: string) => string;
  /** Two signatures in one header, one valid (for schemes that allow several). */
  withExtraSignature?: (headerValue: string, bogus: string) => string;
  body?: Buffer;
  url?: string;
  /** Digest length in bytes, for signatures of the right length (default 32, SHA-256). */
  signatureBytes?: number;
  /**
   * Adds what the scheme reads from the signed body to a contract body before signing: an event id
   * (Paddle, Square) or a timestamp (Linear's `webhookTimestamp`). Bodies are used as they are without it.
   */
  withSignedFields?: (body: Buffer, timestamp: number, id: string) => Buffer;
}

export const NOW = 1_700_000_000;
export const CONTEXT: VerifyContext = { nowSeconds: NOW, toleranceSeconds: 300 };

export function signed(
  fixture: SchemeFixture,
  body: Buffer,
  secret: string,
  timestamp = NOW,
  id = 'msg_2ZkPq1',
) {
  const signedBody = fixture.withSignedFields ? fixture.withSignedFields(body, timestamp, id) : body;
  const headers = fixture.scheme.sign({
    body: signedBody,
    secret,
    timestamp,
    id,
    options: fixture.options,
    url: fixture.url,
  });
  return { body: signedBody, headers: normalizeHeaders(headers), url: fixture.url };
}

/** Adds a top-level field to a JSON object body, keeping every other byte as it was. */
export function withJsonField(body: Buffer, name: string, value: unknown): Buffer {
  if (body[0] !== 0x7b) throw new TypeError('withJsonField: the body is not a JSON object');
  return Buffer.concat([Buffer.from(`{${JSON.stringify(name)}:${JSON.stringify(value)},`), body.subarray(1)]);
}

function bogusSignature(encoding: 'hex' | 'base64', bytes = 32): string {
  return randomBytes(bytes).toString(encoding);
}

export function describeSchemeContract(fixture: SchemeFixture): void {
  const { scheme } = fixture;
  const secret = scheme.generateSecret();
  const context = { ...CONTEXT, options: fixture.options };
  const body = fixture.body ?? Buffer.from('{"id":"evt_1","type":"test.event","data":{"n":1}}');
  const sigName = fixture.signatureHeader.toLowerCase();
  const verify = (request: ReturnType<typeof signed>, secrets: string[] = [secret]) =>
    scheme.verify(request, secrets, context);
  const replaceHeader = (
    request: ReturnType<typeof signed>,
    name: string,
    value: string | string[] | undefined,
  ) => ({
    ...request,
    headers: { ...request.headers, [name.toLowerCase()]: value },
  });
  const withSig = (request: ReturnType<typeof signed>, signature: string) =>
    replaceHeader(request, sigName, fixture.withSignature(request.headers[sigName] as string, signature));
  const reasonOf = (outcome: ReturnType<Scheme['verify']>) => (outcome.ok ? 'accepted' : outcome.reason);

  describe(`${scheme.name}: the contract every scheme keeps`, () => {
    it('verifies what it signs', () => {
      const outcome = verify(signed(fixture, body, secret));
      expect(outcome.ok).toBe(true);
    });

    it.each([
      ['multi-byte UTF-8', Buffer.from('{"id":"evt_1","type":"t","name":"Zoë 🚀 — 東京"}')],
      ['U+2028 and U+2029', Buffer.from('{"id":"evt_1","type":"t","s":"a\u2028b\u2029c"}')],
    ])('verifies a correctly signed body with %s, on the exact bytes', (_name, raw) => {
      const request = signed(fixture, raw, secret);
      const outcome = verify(request);
      expect(reasonOf(outcome)).toBe('accepted');
      if (outcome.ok) expect(outcome.delivery.body.equals(request.body)).toBe(true);
    });

    it('checks the signature on the exact bytes of a body that is not valid UTF-8', () => {
      const raw = Buffer.concat([
        Buffer.from('{"id":"evt_1","type":"t","s":"'),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from('"}'),
      ]);
      // A scheme that reads its event id (or timestamp) from the body must parse it, and JSON text is
      // UTF-8 (RFC 8259): such a body is not JSON. One that does not read the body accepts the bytes as sent.
      const broken = Buffer.from('{"id":"evt_1","type":"t",,}'); // an object's opening, then not JSON
      const plain = reasonOf(verify(signed(fixture, broken, secret)));
      // A scheme that reads the body rejects it exactly as it rejects broken JSON (not_json, or Linear's
      // malformed_timestamp: its timestamp is in the body).
      const outcome = verify(signed(fixture, raw, secret));
      expect(reasonOf(outcome)).toBe(plain);
      expect(reasonOf(outcome)).not.toBe('bad_signature');
      if (outcome.ok) expect(outcome.delivery.body.equals(raw)).toBe(true);
      // Either way the MAC covered those bytes: change one and the signature no longer matches.
      const tampered = signed(fixture, raw, secret);
      const flipped = Buffer.from(tampered.body);
      flipped[flipped.length - 3] = (flipped[flipped.length - 3] ?? 0) ^ 0x01;
      tampered.body = flipped;
      expect(reasonOf(verify(tampered))).toBe('bad_signature');
    });

    it('reads header names case-insensitively', () => {
      const { body: signedBody } = signed(fixture, body, secret, NOW, 'msg_1');
      const headers = scheme.sign({
        body: signedBody,
        secret,
        timestamp: NOW,
        id: 'msg_1',
        options: fixture.options,
        url: fixture.url,
      });
      const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
      expect(
        reasonOf(
          scheme.verify(
            { body: signedBody, headers: normalizeHeaders(shouted), url: fixture.url },
            [secret],
            context,
          ),
        ),
      ).toBe('accepted');
    });

    it('rejects a missing signature header', () => {
      expect(reasonOf(verify(replaceHeader(signed(fixture, body, secret), sigName, undefined)))).toBe(
        'missing_header',
      );
    });

    it('rejects a repeated signature header even when one copy is valid', () => {
      const request = signed(fixture, body, secret);
      const valid = request.headers[sigName] as string;
      const repeated = replaceHeader(request, sigName, [
        valid,
        fixture.withSignature(valid, bogusSignature(fixture.encoding, fixture.signatureBytes)),
      ]);
      expect(reasonOf(verify(repeated))).toBe('repeated_header');
    });

    it('rejects a wrong MAC of the right length as bad_signature', () => {
      const bogus = bogusSignature(fixture.encoding, fixture.signatureBytes);
      expect(reasonOf(verify(withSig(signed(fixture, body, secret), bogus)))).toBe('bad_signature');
    });

    it.each([
      ['truncated', (s: string) => s.slice(0, -4)],
      ['over-long', (s: string) => `${s}${s.slice(0, 4)}`],
      ['odd-length', (s: string) => s.slice(0, -1)],
      ['not in the encoding', (s: string) => `${s.slice(0, -2)}!?`],
      ['non-ASCII', (s: string) => `${s.slice(0, -1)}é`],
      ['empty', (_s: string) => ''],
    ])('rejects a %s signature as malformed, without throwing', (_name, mangle) => {
      const request = signed(fixture, body, secret);
      const good = bogusSignature(fixture.encoding, fixture.signatureBytes);
      const outcome = verify(withSig(request, mangle(good)));
      expect(outcome.ok).toBe(false);
      expect(['malformed_signature', 'no_supported_signature', 'missing_header']).toContain(
        reasonOf(outcome),
      );
    });

    it('rejects the wrong secret', () => {
      expect(reasonOf(verify(signed(fixture, body, scheme.generateSecret())))).toBe('bad_signature');
    });

    it('accepts the previous secret during rotation and reports which one matched', () => {
      const previous = scheme.generateSecret();
      const outcome = verify(signed(fixture, body, previous), [secret, previous]);
      expect(outcome.ok).toBe(true);
      if (outcome.ok) expect(outcome.delivery.secretIndex).toBe(1);
    });

    it('rejects a secret older than the ones configured', () => {
      const older = scheme.generateSecret();
      expect(reasonOf(verify(signed(fixture, body, older), [secret, scheme.generateSecret()]))).toBe(
        'bad_signature',
      );
    });

    it.each([
      ['no secrets', []],
      ['an empty secret', ['']],
      ['a whitespace secret', ['   ']],
      ['a secret with a trailing newline', ['__SECRET__\n']],
      ['a valid secret next to an empty one', ['__SECRET__', '']],
    ])('fails closed with %s (no_secret, never valid)', (_name, secrets) => {
      const list = (secrets as string[]).map((s) => s.replace('__SECRET__', secret));
      expect(reasonOf(verify(signed(fixture, body, secret), list))).toBe('no_secret');
    });

    it('never verifies a body with one byte flipped (200 random flips)', () => {
      const request = signed(fixture, body, secret);
      for (let i = 0; i < 200; i++) {
        const flipped = Buffer.from(request.body);
        const at = Math.floor(Math.random() * flipped.length);
        flipped[at] = (flipped[at] as number) ^ (1 + Math.floor(Math.random() * 255));
        expect(verify({ ...request, body: flipped }).ok).toBe(false);
      }
    });

    it('rejects a whitespace-changed body', () => {
      const request = signed(fixture, body, secret);
      expect(verify({ ...request, body: Buffer.concat([request.body, Buffer.from('\n')]) }).ok).toBe(false);
    });

    it('never throws whatever the headers and body hold, and never accepts them mangled', () => {
      const request = signed(fixture, body, secret);
      const checked = new Set(
        [fixture.signatureHeader, fixture.timestampHeader, fixture.idHeader].flatMap((name) =>
          name ? [name.toLowerCase()] : [],
        ),
      );
      const hostile: (string | string[])[] = [
        '',
        ' ',
        '=',
        '==',
        ',;, ;',
        't=,v1=',
        'ts=;h1=',
        'v0=',
        'sha256=',
        'v1,',
        '\u0000',
        'é'.repeat(64),
        '9'.repeat(400),
        'x'.repeat(20_000),
        [],
        ['', ''],
      ];
      for (const name of Object.keys(request.headers)) {
        for (const value of hostile) {
          const outcome = verify(replaceHeader(request, name, value));
          if (checked.has(name)) expect(outcome.ok).toBe(false);
        }
      }
      for (const hostileBody of [
        Buffer.alloc(0),
        Buffer.from('null'),
        Buffer.from('[]'),
        Buffer.from([0xff]),
      ]) {
        expect(verify({ ...request, body: hostileBody }).ok).toBe(false);
      }
    });

    if (fixture.unknownVersionsOnly) {
      const only = fixture.unknownVersionsOnly;
      it('ignores unknown signature versions and rejects when none is left', () => {
        const request = signed(fixture, body, secret);
        const outcome = verify(replaceHeader(request, sigName, only(request.headers[sigName] as string)));
        expect(reasonOf(outcome)).toBe('no_supported_signature');
      });
    }

    if (fixture.withExtraSignature) {
      const extra = fixture.withExtraSignature;
      it('accepts several signatures when one is valid', () => {
        const request = signed(fixture, body, secret);
        const bogus = bogusSignature(fixture.encoding, fixture.signatureBytes);
        const value = extra(request.headers[sigName] as string, bogus);
        expect(reasonOf(verify(replaceHeader(request, sigName, value)))).toBe('accepted');
      });
    }

    if (fixture.timestampHeader) {
      const tsName = fixture.timestampHeader.toLowerCase();
      it.each([
        ['hello', 'malformed_timestamp'],
        ['1700000000abc', 'malformed_timestamp'],
        ['1.7e9', 'malformed_timestamp'],
        ['-1700000000', 'malformed_timestamp'],
        ['1700000000000', 'malformed_timestamp'],
        [' 1700000000', 'malformed_timestamp'],
      ])('rejects the timestamp %j as %s', (value, reason) => {
        const request = signed(fixture, body, secret);
        expect(reasonOf(verify(replaceHeader(request, tsName, value)))).toBe(reason);
      });

      it('rejects a timestamp older than the window, even when correctly signed', () => {
        expect(reasonOf(verify(signed(fixture, body, secret, NOW - 301)))).toBe('stale_timestamp');
      });

      it('rejects a timestamp ahead of the window, even when correctly signed', () => {
        expect(reasonOf(verify(signed(fixture, body, secret, NOW + 301)))).toBe('future_timestamp');
      });

      it('accepts a timestamp at the edge of the window', () => {
        expect(reasonOf(verify(signed(fixture, body, secret, NOW - 300)))).toBe('accepted');
      });

      it('rejects a timestamp swapped in from another signed delivery', () => {
        const other = signed(fixture, body, secret, NOW - 10);
        const request = signed(fixture, body, secret, NOW);
        expect(reasonOf(verify(replaceHeader(request, tsName, other.headers[tsName] as string)))).toBe(
          'bad_signature',
        );
      });
    }

    if (fixture.idHeader) {
      const idName = fixture.idHeader.toLowerCase();
      it('takes the dedup key from the signed id', () => {
        const outcome = verify(signed(fixture, body, secret, NOW, 'msg_dedup_1'));
        expect(outcome.ok && outcome.delivery.dedupKey).toBe('msg_dedup_1');
      });

      it('rejects an id swapped in from another signed delivery', () => {
        const request = signed(fixture, body, secret, NOW, 'msg_a');
        expect(reasonOf(verify(replaceHeader(request, idName, 'msg_b')))).toBe('bad_signature');
      });

      it.each([
        ['a dot', 'msg.1'],
        ['a control character', 'msg\u00011'],
        ['a space', 'msg 1'],
        ['over 255 characters', 'm'.repeat(256)],
      ])('rejects an id with %s as malformed_id', (_name, id) => {
        const request = signed(fixture, body, secret, NOW, id);
        expect(reasonOf(verify(request))).toBe('malformed_id');
      });

      it('rejects a missing id header', () => {
        expect(reasonOf(verify(replaceHeader(signed(fixture, body, secret), idName, undefined)))).toBe(
          'missing_header',
        );
      });
    }
  });
}

/** One request judged by both a provider's own library and our scheme. */
export interface PeerCase {
  name: string;
  body: string;
  /** As the provider spells them. */
  headers: Record<string, string>;
  /**
   * Set where we answer otherwise on purpose: why, in the words of the table of differences (docs/providers.md)
   * from the providers' libraries. The test then checks that the difference is still there.
   */
  differs?: string;
}

export interface PeerAgreement {
  /** The library, as named in the test titles. */
  peer: string;
  scheme: Scheme;
  secret: string;
  /** Read when the case runs: some libraries read the clock themselves. */
  context: () => VerifyContext;
  url?: string;
  /** The library's verdict: true when it accepts the request, false when it refuses or throws. */
  peerAccepts: (request: PeerCase) => boolean | Promise<boolean>;
  cases: readonly PeerCase[];
}

/**
 * Each case through the provider's library and through our scheme: the two agree, except where a case
 * names its deliberate difference, and then they must still differ (so the documented table stays true).
 */
export function describePeerAgreement(agreement: PeerAgreement): void {
  const { peer, scheme } = agreement;
  const theirs = async (request: PeerCase) => {
    try {
      return await agreement.peerAccepts(request);
    } catch {
      return false;
    }
  };
  const ours = (request: PeerCase) =>
    scheme.verify(
      { body: Buffer.from(request.body), headers: normalizeHeaders(request.headers), url: agreement.url },
      [agreement.secret],
      agreement.context(),
    ).ok;

  describe(`${scheme.name}: agreement with ${peer}`, () => {
    const agreeing = agreement.cases.filter((c) => c.differs === undefined);
    const differing = agreement.cases.filter((c) => c.differs !== undefined);
    if (agreeing.length > 0) {
      it.each(agreeing.map((c) => [c.name, c] as const))('agrees on %s', async (_name, request) => {
        expect({ ours: ours(request) }).toEqual({ ours: await theirs(request) });
      });
    }
    if (differing.length > 0) {
      it.each(differing.map((c) => [c.name, c.differs, c] as const))(
        'differs on %s, on purpose: %s',
        async (_name, _why, request) => {
          expect({ ours: ours(request) }).toEqual({ ours: !(await theirs(request)) });
        },
      );
    }
  });
}
