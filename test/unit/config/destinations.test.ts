// An SQS destination's queue ARN is accepted only where every Lambda can turn it into a queue URL at
// init (lambdas/core/destinations/sqs-queue-url.ts): a partition the URL table lacks is refused by the
// schema, not found when the Lambdas start and throw.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';

const withQueue = (queueArn: string) => parseConfig({ destinations: { audit: { type: 'sqs', queueArn } } });

describe('an sqs destination', () => {
  it('accepts a queue ARN in each partition whose endpoint is known', () => {
    for (const partition of ['aws', 'aws-us-gov', 'aws-cn', 'aws-iso', 'aws-iso-b']) {
      expect(() => withQueue(`arn:${partition}:sqs:us-east-1:123456789012:audit-queue`)).not.toThrow();
    }
  });

  it('refuses a partition whose endpoint is not known, and what is not a queue ARN', () => {
    for (const arn of [
      'arn:aws-iso-e:sqs:eu-isoe-west-1:123456789012:audit-queue',
      'arn:aws-eusc:sqs:eusc-de-east-1:123456789012:audit-queue',
      'arn:aws:sns:us-east-1:123456789012:audit-topic',
    ]) {
      expect(() => withQueue(arn), arn).toThrow(/queueArn/);
    }
  });
});

describe('an http destination', () => {
  const withUrl = (url: string) => parseConfig({ destinations: { api: { type: 'http', url } } });

  it('accepts a URL the forwarder can call', () => {
    expect(() => withUrl('https://user:pw@hooks.example.com:8443/in?token=abc')).not.toThrow();
  });

  it('refuses a URL the WHATWG parser refuses, though it matches the shape (a port over 65535)', () => {
    expect(() => withUrl('http://user:pw@127.0.0.1:99999/x?token=abc')).toThrow(/not a URL/);
  });
});
