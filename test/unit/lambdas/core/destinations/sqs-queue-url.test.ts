// The target queue's URL from the ARN the config names it by, in each partition's domain.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../config/errors';
import { queueUrlFromArn } from '../../../../../lambdas/core/destinations/sqs-queue-url';

describe('queueUrlFromArn', () => {
  it.each([
    [
      'arn:aws:sqs:eu-west-1:123456789012:partner-events',
      'https://sqs.eu-west-1.amazonaws.com/123456789012/partner-events',
    ],
    [
      'arn:aws-us-gov:sqs:us-gov-west-1:123456789012:q_1',
      'https://sqs.us-gov-west-1.amazonaws.com/123456789012/q_1',
    ],
    ['arn:aws-cn:sqs:cn-north-1:123456789012:q', 'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/q'],
  ])('%s is at %s', (arn, url) => {
    expect(queueUrlFromArn(arn)).toBe(url);
  });

  it.each([
    'arn:aws:sns:eu-west-1:123456789012:topic',
    'arn:aws:sqs:eu-west-1:1234:q',
    'arn:aws:sqs:eu-west-1:123456789012:q/../other',
    'arn:aws-mars:sqs:mars-1:123456789012:q',
  ])('refuses %s with a ConfigError naming it', (arn) => {
    expect(() => queueUrlFromArn(arn)).toThrow(ConfigError);
    expect(() => queueUrlFromArn(arn)).toThrow(arn);
  });
});
