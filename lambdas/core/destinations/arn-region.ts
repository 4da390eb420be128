// Which region an SQS queue or EventBridge bus named by ARN is in, and whether the forwarder can reach it.
// A request to a queue or bus goes to that region's endpoint and is signed for that region; the forwarder's
// credentials work in every region of its own partition, in no other. Pure.

const ARN = /^arn:(aws[a-z-]*):([a-z0-9-]+):([a-z0-9-]*):(\d{12})?:.+$/;

/** The region in `arn:<partition>:<service>:<region>:<account>:<resource>`; undefined for a name or a global ARN. */
export function regionOfArn(arn: string): string | undefined {
  const region = ARN.exec(arn)?.[3];
  return region === undefined || region === '' ? undefined : region;
}

/** The partition in an ARN (`aws`, `aws-cn`, `aws-us-gov`, ...); undefined for anything else. */
export function partitionOfArn(arn: string): string | undefined {
  return ARN.exec(arn)?.[1];
}

/** The partition a region belongs to, by AWS's region naming. */
export function partitionOfRegion(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  if (region.startsWith('us-isob-')) return 'aws-iso-b';
  if (region.startsWith('us-iso-')) return 'aws-iso';
  return 'aws';
}

export type TargetReach =
  | { reachable: true; region: string; sameRegion: boolean }
  | { reachable: false; reason: 'not_an_arn' | 'other_partition'; region?: string };

/**
 * Whether a forwarder in `forwarderRegion` can send to the queue or bus `arn`: any region of its own
 * partition (through a client for that region), none of another partition (other credentials).
 */
export function targetReach(arn: string, forwarderRegion: string): TargetReach {
  const region = regionOfArn(arn);
  const partition = partitionOfArn(arn);
  if (region === undefined || partition === undefined) return { reachable: false, reason: 'not_an_arn' };
  if (partition !== partitionOfRegion(forwarderRegion)) {
    return { reachable: false, reason: 'other_partition', region };
  }
  return { reachable: true, region, sameRegion: region === forwarderRegion };
}
