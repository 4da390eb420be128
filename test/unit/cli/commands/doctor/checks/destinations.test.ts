// The destination items: a queue or bus in another region of the stack's partition passes (the forwarder
// has a client per region), one in another partition fails, and each destination's signed test is judged
// as the forwarder would.
import { describe, expect, it } from 'vitest';
import { checkDestinations } from '../../../../../../cli/commands/doctor/checks/destinations';
import { parseConfig } from '../../../../../../config';
import { accessDenied, awsError, fakeContext, fakeTarget } from '../fake-context';

const config = parseConfig({
  destinations: {
    crm: { type: 'sqs', queueArn: 'arn:aws:sqs:us-east-1:210987654321:crm-inbound' },
    china: { type: 'sqs', queueArn: 'arn:aws-cn:sqs:cn-north-1:210987654321:crm-inbound' },
    audit: { type: 'eventbridge', busArn: 'arn:aws:events:eu-west-1:210987654321:event-bus/audit' },
  },
});
const resources = { queueUrl: 'q', queueArn: 'qa', dlqUrl: 'd', dlqArn: 'da' };
const outputsPassed = [{ id: 'outputs', title: 'o', status: 'pass' as const, detail: '' }];

function ctx(overrides = {}) {
  const target = {
    ...fakeTarget(config),
    destinations: { crm: resources, china: resources, audit: resources },
  };
  return fakeContext({ target, ...overrides }, config);
}

describe('checkDestinations', () => {
  it('passes a target in another region of the partition, fails one in another partition', async () => {
    const results = await checkDestinations(ctx(), outputsPassed);
    const byId = Object.fromEntries(results.map((r) => [r.id, r]));
    expect(byId['destination-region:crm']).toMatchObject({ status: 'pass' });
    expect(byId['destination-region:crm']?.detail).toContain(
      'us-east-1; the forwarder sends from eu-west-1 with a client of us-east-1',
    );
    expect(byId['destination-region:china']).toMatchObject({ status: 'fail' });
    expect(byId['destination-region:china']?.detail).toContain('another partition');
    expect(byId['destination-region:audit']).toMatchObject({ status: 'pass' });
    expect(byId['destination-test:crm']).toMatchObject({ status: 'pass' });
  });

  it('fails a test the forwarder would dead-letter, saying so', async () => {
    const results = await checkDestinations(
      ctx({
        testDestination: async () => ({
          id: 'crm',
          webhookId: 'x',
          status: 400,
          code: 'http_400',
          verdict: 'permanent',
          meaning: 'the forwarder would dead-letter this at once',
          durationMs: 1,
        }),
      }),
      outputsPassed,
    );
    const test = results.find((r) => r.id === 'destination-test:crm');
    expect(test).toMatchObject({
      status: 'fail',
      detail: '400 http_400: the forwarder would dead-letter this at once',
    });
    expect(test?.wrote).toContain('one test event');
  });

  it("cannot check a test this machine's credentials may not send", async () => {
    const results = await checkDestinations(
      ctx({ testDestination: () => Promise.reject(accessDenied()) }),
      outputsPassed,
    );
    expect(results.find((r) => r.id === 'destination-test:crm')?.status).toBe('cannot-check');
  });

  it('cannot check, rather than fail, a test send that was throttled', async () => {
    const results = await checkDestinations(
      ctx({ testDestination: () => Promise.reject(awsError('ThrottlingException', 'Rate exceeded')) }),
      outputsPassed,
    );
    expect(results.find((r) => r.id === 'destination-test:crm')?.status).toBe('cannot-check');
  });

  it('skips the tests, not the region checks, with --no-delivery', async () => {
    const results = await checkDestinations(
      ctx({ options: { delivery: false, alarm: true } }),
      outputsPassed,
    );
    expect(results.find((r) => r.id === 'destination-test:crm')?.status).toBe('skipped');
    expect(results.find((r) => r.id === 'destination-region:china')?.status).toBe('fail');
  });
});
