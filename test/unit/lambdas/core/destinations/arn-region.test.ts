import { describe, expect, it } from 'vitest';
import {
  partitionOfRegion,
  regionOfArn,
  targetReach,
} from '../../../../../lambdas/core/destinations/arn-region';

describe('regionOfArn', () => {
  it('reads the region of a queue or bus ARN', () => {
    expect(regionOfArn('arn:aws:sqs:eu-west-1:210987654321:crm-inbound')).toBe('eu-west-1');
    expect(regionOfArn('arn:aws-cn:events:cn-north-1:210987654321:event-bus/audit')).toBe('cn-north-1');
  });

  it('has none for a bus name, or an ARN without a region', () => {
    expect(regionOfArn('webhook-inbox-local-bus')).toBeUndefined();
    expect(regionOfArn('arn:aws:iam::123456789012:role/x')).toBeUndefined();
  });
});

describe('targetReach', () => {
  it('reaches any region of the forwarder’s partition, saying whether it is its own', () => {
    expect(targetReach('arn:aws:sqs:eu-west-1:210987654321:q', 'us-east-1')).toEqual({
      reachable: true,
      region: 'eu-west-1',
      sameRegion: false,
    });
    expect(targetReach('arn:aws:sqs:us-east-1:210987654321:q', 'us-east-1')).toMatchObject({
      sameRegion: true,
    });
  });

  it('does not reach another partition, or what is not an ARN', () => {
    expect(targetReach('arn:aws-cn:sqs:cn-north-1:210987654321:q', 'eu-west-1')).toEqual({
      reachable: false,
      reason: 'other_partition',
      region: 'cn-north-1',
    });
    expect(targetReach('my-bus', 'eu-west-1')).toEqual({ reachable: false, reason: 'not_an_arn' });
    expect(partitionOfRegion('us-gov-west-1')).toBe('aws-us-gov');
  });
});
