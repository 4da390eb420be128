import { describe, expect, it } from 'vitest';
import { parseConfig, type ResolvedDestination } from '../../../../../config';
import {
  destinationsFor,
  matchesDestination,
  matchesEventType,
} from '../../../../../lambdas/core/destinations/filter';

describe('matchesEventType', () => {
  it('matches everything when no types are listed', () => {
    expect(matchesEventType(undefined, 'anything.at.all')).toBe(true);
  });

  it.each([
    ['customer.*', 'customer.created', true],
    ['customer.*', 'customer.subscription.updated', true],
    ['customer.*', 'customer.', true],
    ['customer.*', 'customer', false],
    ['customer.*', 'customers.created', false],
    ['customer.*', 'xcustomer.created', false],
    ['*.created', 'customer.created', true],
    ['*.created', 'invoice.item.created', true],
    ['*.created', 'customer.created.v2', false],
    ['*.created', 'created', false],
    ['*', 'push', true],
    ['*', '', true],
    ['*', 'line\nbreak', true],
    ['push', 'push', true],
    ['push', 'pushed', false],
    ['push', 'a.push', false],
    ['a*b*c', 'a-b-c', true],
    ['a*b*c', 'acb', false],
    ['caf\u00e9.*', 'caf\u00e9.ordered', true],
    ['payment-intent.*', 'payment-intent.succeeded', true],
  ])('%j against %j is %s', (glob, type, expected) => {
    expect(matchesEventType([glob], type)).toBe(expected);
  });

  it.each([
    ['a.b', 'aXb'],
    ['ref(s)+', 'refs'],
    ['ref(s)+', 'refss'],
    ['[abc]', 'a'],
    ['^push$', 'push'],
    ['a|b', 'a'],
    ['a?', 'a'],
    ['a\\d', 'a1'],
    ['price.$', 'price.'],
    ['x{2}', 'xx'],
    ['a/b', 'a/b-'],
  ])('takes the regex metacharacters in %j literally: it does not match %j', (glob, type) => {
    expect(matchesEventType([glob], type)).toBe(false);
  });

  it.each(['a.b', 'ref(s)+', '[abc]', '^push$', 'a|b', 'a?', 'a\\d', 'price.$', 'x{2}', 'a/b-c'])(
    'matches %j itself',
    (glob) => {
      expect(matchesEventType([glob], glob)).toBe(true);
    },
  );

  it('compiles any text as a glob that matches itself (a hyphen once threw under the u flag)', () => {
    const alphabet = 'ab.-_/\\^$|?+*()[]{}:, \u00e9\u2713\ud83d\ude00\n';
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed;
    };
    for (let i = 0; i < 2000; i++) {
      const glob = Array.from({ length: 1 + (next() % 12) }, () => alphabet[next() % alphabet.length]).join(
        '',
      );
      expect(matchesEventType([glob], glob)).toBe(true);
    }
  });

  it('matches when any one of the globs does', () => {
    expect(matchesEventType(['push', 'issues.*'], 'issues.opened')).toBe(true);
    expect(matchesEventType(['push', 'issues.*'], 'pull_request')).toBe(false);
  });

  it('stays right past its cache of compiled globs', () => {
    for (let i = 0; i < 600; i++) {
      expect(matchesEventType([`type${i}.*`], `type${i}.x`)).toBe(true);
      expect(matchesEventType([`type${i}.*`], `type${i + 1}.x`)).toBe(false);
    }
  });
});

describe('matchesDestination and destinationsFor', () => {
  const config = parseConfig({
    providers: { github: { scheme: 'github' }, stripe: { scheme: 'stripe' } },
    destinations: {
      billing: { type: 'http', url: 'https://billing.example.com/in', filter: { providers: ['stripe'] } },
      customers: {
        type: 'sqs',
        queueArn: 'arn:aws:sqs:eu-west-1:123456789012:customers',
        filter: { providers: ['stripe'], eventTypes: ['customer.*'] },
      },
      everything: { type: 'eventbridge' },
      code: { type: 'handlers', filter: { providers: ['github'], eventTypes: ['push', 'pull_request'] } },
    },
  });
  const ids = (provider: string, type: string) => destinationsFor(config, provider, type).map((d) => d.id);

  it("filters by provider, then by event type, in the config's order", () => {
    expect(ids('stripe', 'customer.created')).toEqual(['billing', 'customers', 'everything']);
    expect(ids('stripe', 'invoice.paid')).toEqual(['billing', 'everything']);
    expect(ids('github', 'push')).toEqual(['everything', 'code']);
    expect(ids('github', 'issues')).toEqual(['everything']);
  });

  it('needs both the provider and the event type to match', () => {
    const customers = config.destinations.customers as ResolvedDestination;
    expect(matchesDestination(customers, 'github', 'customer.created')).toBe(false);
    expect(matchesDestination(customers, 'stripe', 'charge.failed')).toBe(false);
    expect(matchesDestination(customers, 'stripe', 'customer.deleted')).toBe(true);
  });
});
