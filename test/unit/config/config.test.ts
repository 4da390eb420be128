import { describe, expect, it } from 'vitest';
import { checkLocally, sampleDelivery, signDelivery } from '../../../cli/operations/signed-delivery';
import {
  ConfigError,
  defaultProviders,
  parseConfig,
  SCHEME_NAMES,
  toConfigInput,
  UNTIMED_DEDUP_TTL_SECONDS,
} from '../../../config';
import { loadProjectConfig } from '../../../config/load';
import { SCHEMES } from '../../../lambdas/core/schemes';
import { readDoc } from '../../support/docs';

describe('parseConfig', () => {
  it('registers one provider per built-in scheme, named after it, by default', () => {
    const config = parseConfig(undefined);
    expect(Object.keys(config.providers).sort()).toEqual([...SCHEME_NAMES].sort());
    for (const [id, provider] of Object.entries(config.providers)) expect(provider.scheme).toBe(id);
  });

  it('fills provider defaults: 300 s tolerance, 1 MiB max body, 7 day dedup TTL, JSON only', () => {
    const { stripe } = parseConfig({ providers: { stripe: { scheme: 'stripe' } } }).providers;
    expect(stripe).toMatchObject({
      toleranceSeconds: 300,
      maxBodyBytes: 1_048_576,
      dedupTtlSeconds: 604_800,
      contentTypes: ['application/json'],
      unknownEvents: 'ack',
    });
  });

  // Each provider's replay window, from its own docs or library (docs/configuration.md).
  const WINDOWS: Record<(typeof SCHEME_NAMES)[number], number> = {
    github: 300,
    stripe: 300,
    'standard-webhooks': 300,
    shopify: 300,
    slack: 300,
    mobazha: 300,
    'generic-hmac': 300,
    zoom: 300,
    paddle: 5,
    linear: 60,
    square: 300,
  };

  it("gives every default provider its provider's replay window", () => {
    const { providers } = parseConfig(undefined);
    expect(Object.fromEntries(Object.entries(providers).map(([id, p]) => [id, p.toleranceSeconds]))).toEqual(
      WINDOWS,
    );
  });

  it("matches the configuration reference's table of default windows", () => {
    const page = readDoc('docs/configuration.md');
    const rows = [...page.matchAll(/^\| `([a-z-]+)`\s+\| (\d+) s\s+\|/gm)];
    const documented = Object.fromEntries(rows.map(([, scheme, seconds]) => [scheme, Number(seconds)]));
    const timed = Object.entries(WINDOWS).filter(
      ([scheme]) => !['github', 'shopify', 'square'].includes(scheme),
    );
    expect(documented).toEqual(Object.fromEntries(timed));
  });

  it('keeps the scheme defaults for providers configured without those keys', () => {
    const { providers } = parseConfig({
      providers: {
        billing: { scheme: 'paddle' },
        issues: { scheme: 'linear' },
        chat: { scheme: 'slack' },
        partner: { scheme: 'standard-webhooks' },
      },
    });
    expect(providers.billing?.toleranceSeconds).toBe(5);
    expect(providers.issues?.toleranceSeconds).toBe(60);
    expect(providers.partner?.toleranceSeconds).toBe(300);
    expect(providers.chat).toMatchObject({
      toleranceSeconds: 300,
      contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
      requireJson: false,
    });
  });

  it('lets each provider override its scheme defaults', () => {
    const { providers } = parseConfig({
      providers: {
        paddle: { scheme: 'paddle', toleranceSeconds: 30 },
        linear: { scheme: 'linear', toleranceSeconds: 120 },
        slack: { scheme: 'slack', contentTypes: ['application/json'], requireJson: true },
      },
    });
    expect(providers.paddle?.toleranceSeconds).toBe(30);
    expect(providers.linear?.toleranceSeconds).toBe(120);
    expect(providers.slack).toMatchObject({ contentTypes: ['application/json'], requireJson: true });
  });

  // A provider whose signature covers no timestamp is remembered 35 days rather than 7: a capture of it
  // verifies for ever, and the dedup window is all that keeps it from running twice.
  const partner = { scheme: 'generic-hmac', options: { signatureHeader: 'X-Sig' } } as const;
  const withUntimedPartners = {
    providers: {
      ...defaultProviders(),
      partner,
      // A timestamp header the template leaves out is checked for freshness, but anyone can rewrite it.
      'partner-unsigned-ts': {
        scheme: 'generic-hmac',
        options: { ...partner.options, timestampHeader: 'X-Ts' },
      },
    },
  } as const;
  const DAY = 86_400;

  it('keeps records 35 days for github, shopify, square and a generic-hmac template without {timestamp}', () => {
    const { providers } = parseConfig(withUntimedPartners);
    const windows = Object.fromEntries(
      Object.entries(providers).map(([id, p]) => [id, p.dedupTtlSeconds / DAY]),
    );
    expect(windows).toEqual({
      github: 35,
      shopify: 35,
      square: 35,
      partner: 35,
      'partner-unsigned-ts': 35,
      stripe: 7,
      'standard-webhooks': 7,
      slack: 7,
      mobazha: 7,
      'generic-hmac': 7,
      zoom: 7,
      paddle: 7,
      linear: 7,
    });
  });

  it('gives the 35-day window to exactly the providers whose signature still verifies 8 days later', () => {
    // What the scheme does, not what the config believes: a sample signed 8 days ago, checked now.
    const nowMs = Date.UTC(2026, 10, 30, 12);
    const thenMs = nowMs - 8 * DAY * 1000;
    const url = 'https://127.0.0.1/webhooks/x';
    const config = parseConfig({ providers: { ...defaultProviders(), partner } });
    for (const provider of Object.values(config.providers)) {
      const secret = SCHEMES[provider.scheme].generateSecret();
      const old = signDelivery(provider, sampleDelivery(provider, { nowMs: thenMs, url }), {
        secret,
        timestamp: thenMs / 1000,
        url,
      });
      const stillValid = checkLocally(provider, { ...old, url }, [secret], nowMs / 1000).ok;
      expect(`${provider.id}: ${provider.dedupTtlSeconds === UNTIMED_DEDUP_TTL_SECONDS}`).toBe(
        `${provider.id}: ${stillValid}`,
      );
    }
  });

  it('lets an explicit dedupTtlSeconds win over the long default, and keeps the schema maximum', () => {
    const { providers } = parseConfig({
      providers: {
        github: { scheme: 'github', dedupTtlSeconds: 2 * DAY },
        stripe: { scheme: 'stripe', dedupTtlSeconds: 90 * DAY },
      },
    });
    expect([providers.github?.dedupTtlSeconds, providers.stripe?.dedupTtlSeconds]).toEqual([
      2 * DAY,
      90 * DAY,
    ]);
    expect(() =>
      parseConfig({ providers: { github: { scheme: 'github', dedupTtlSeconds: 366 * DAY } } }),
    ).toThrow('webhookInbox.providers.github.dedupTtlSeconds: must be <= 31536000');
  });

  it('gives the default generic-hmac provider v1=<hex> over {timestamp}.{body}', () => {
    expect(parseConfig(undefined).providers['generic-hmac']?.options).toMatchObject({
      signatureHeader: 'X-Webhook-Signature',
      signaturePrefix: 'v1=',
      template: '{timestamp}.{body}',
    });
  });

  it.each([
    [
      { queue: { maxReceiveCount: 2 } },
      'webhookInbox.queue.maxReceiveCount: replaced by queue.retrySchedule',
    ],
    [
      { queue: { backoffCapSeconds: 60 } },
      'webhookInbox.queue.backoffCapSeconds: replaced by queue.retrySchedule',
    ],
    [{ queue: { retrySchedule: [] } }, 'webhookInbox.queue.retrySchedule: must be >= 1'],
    [{ queue: { retrySchedule: ['30s', '5 minutes'] } }, 'webhookInbox.queue.retrySchedule.1: '],
    [{ queue: { retrySchedule: ['30s', 0] } }, 'webhookInbox.queue.retrySchedule.1: '],
    [
      { queue: { retrySchedule: [1.5] } },
      'webhookInbox.queue.retrySchedule.0: must be a duration such as 30s, 10m or 2h, or whole seconds',
    ],
    [
      { queue: { retrySchedule: Array.from({ length: 21 }, () => '12h') } },
      'webhookInbox.queue.retrySchedule: the steps add up to 252h, which leaves a given-up message less than 3 days in the DLQ',
    ],
    [
      { queue: { retrySchedule: ['1h', '13h'] } },
      "webhookInbox.queue.retrySchedule.1: 13h is over SQS's 12h visibility limit",
    ],
    [
      { queue: { retrySchedule: Array.from({ length: 27 }, () => '12h') } },
      "webhookInbox.queue.retrySchedule: the steps add up to 324h; with a day's margin that is over",
    ],
    [{ providers: { github: { scheme: 'gitlab' } } }, 'webhookInbox.providers.github.scheme: must be one of'],
    [{ providers: { GitHub: { scheme: 'github' } } }, 'webhookInbox.providers.GitHub: invalid name'],
    [
      { providers: { github: { scheme: 'github', toleranceSeconds: 'x' } } },
      'webhookInbox.providers.github.toleranceSeconds: expected number',
    ],
    [
      { providers: { github: { scheme: 'github', maxBodyBytes: 7_000_000 } } },
      'webhookInbox.providers.github.maxBodyBytes: must be <= 4521981',
    ],
    [{ inlineLimitBytes: 2_000_000 }, 'webhookInbox.inlineLimitBytes: must be <= 700000'],
    [{ typo: 1 }, 'webhookInbox: unknown key typo'],
    [{ providers: { p: { scheme: 'generic-hmac' } } }, 'webhookInbox.providers.p.options: expected object'],
    [
      {
        providers: {
          p: {
            scheme: 'generic-hmac',
            options: { signatureHeader: 'X-Sig', template: '{timestamp}.{body}' },
          },
        },
      },
      'webhookInbox.providers.p.options.timestampHeader: required',
    ],
    [
      { providers: { github: { scheme: 'github', options: { signatureHeader: 'X' } } } },
      'webhookInbox.providers.github.options: the github scheme takes no options',
    ],
    [{ providers: {} }, 'webhookInbox.providers: at least one provider'],
  ])('rejects %j naming the bad key', (raw, message) => {
    expect(() => parseConfig(raw)).toThrow(ConfigError);
    expect(() => parseConfig(raw)).toThrow(message);
  });

  it('parses the shipped cdk.json, whose retry schedule is the default one', () => {
    expect(loadProjectConfig().queue.retrySchedule).toEqual(parseConfig({}).queue.retrySchedule);
  });

  it('resolves the default retry schedule to seconds: 30 s up to three steps of 12 h', () => {
    expect(parseConfig({}).queue.retrySchedule).toEqual([
      30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 43_200, 43_200,
    ]);
  });

  it('accepts steps as durations or whole seconds, in any mix', () => {
    expect(parseConfig({ queue: { retrySchedule: ['45s', 90, '3m', '1h'] } }).queue.retrySchedule).toEqual([
      45, 90, 180, 3600,
    ]);
  });
});

describe('generic-hmac templates whose fields can trade bytes', () => {
  const withTemplate = (template: string) => ({
    providers: {
      partner: {
        scheme: 'generic-hmac',
        options: { signatureHeader: 'X-Sig', template, timestampHeader: 'X-Ts', idHeader: 'X-Id' },
      },
    },
  });

  it.each([
    ['{id}{body}', '{id} and {body} side by side'],
    ['{timestamp}{body}', '{timestamp} and {body} side by side'],
    ['{id}{timestamp}.{body}', '{id} and {timestamp} side by side'],
    ['{body}{id}', '{body} and {id} side by side'],
    ['v1:{id}{timestamp}.{body}', '{id} and {timestamp} side by side'],
    ['{id}-{body}', '{id} and {body} apart only by "-", which both can contain'],
    ['{body}|{id}', '{body} and {id} apart only by "|", which both can contain'],
    ['{timestamp}12{body}', '{timestamp} and {body} apart only by "12", which both can contain'],
  ])('refuses %s, naming the template and the two fields', (template, why) => {
    expect(() => parseConfig(withTemplate(template))).toThrow(ConfigError);
    expect(() => parseConfig(withTemplate(template))).toThrow(
      `webhookInbox.providers.partner.options.template: ${JSON.stringify(template)} puts ${why}`,
    );
  });

  it.each([
    '{timestamp}.{body}',
    '{id}.{timestamp}.{body}',
    'v0:{timestamp}:{body}',
    '{timestamp}-{body}',
    '{id}:{timestamp}:{body}',
    '{id} {body}',
    '{body}.{id}',
    '{body}',
  ])('accepts %s, where a character one field cannot contain fixes every boundary', (template) => {
    expect(parseConfig(withTemplate(template)).providers.partner?.options).toMatchObject({ template });
  });
});

describe('toConfigInput', () => {
  it('round-trips a resolved config through JSON, as the Lambdas receive it', () => {
    const config = parseConfig({ queue: { retrySchedule: ['1m', '2h'] } });
    expect(parseConfig(JSON.parse(JSON.stringify(toConfigInput(config))))).toEqual(config);
  });

  it('keeps an overridden and a scheme-default window through the round trip', () => {
    const config = parseConfig({
      providers: { paddle: { scheme: 'paddle' }, slow: { scheme: 'paddle', toleranceSeconds: 60 } },
    });
    const again = parseConfig(JSON.parse(JSON.stringify(toConfigInput(config))));
    expect([again.providers.paddle?.toleranceSeconds, again.providers.slow?.toleranceSeconds]).toEqual([
      5, 60,
    ]);
  });
});
