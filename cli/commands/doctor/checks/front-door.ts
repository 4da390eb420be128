// What the stack's resources say about it where its outputs do not: its front door, its verify Lambda,
// its alarms. Read from ListStackResources (once, by the command's wiring).
import type { DoctorContext, StackResource } from '../ports';

export type FrontDoor = 'rest' | 'http' | 'function-url';

const FRONT_DOOR_TYPES: Record<string, FrontDoor> = {
  'AWS::Lambda::Url': 'function-url',
  'AWS::ApiGatewayV2::Api': 'http',
  'AWS::ApiGateway::RestApi': 'rest',
};

export function frontDoorIn(resources: readonly StackResource[]): FrontDoor | undefined {
  for (const resource of resources) {
    const kind = FRONT_DOOR_TYPES[resource.type];
    if (kind !== undefined) return kind;
  }
  return undefined;
}

/** The front door, or undefined when the stack's resources cannot be read. */
export async function frontDoorOf(ctx: DoctorContext): Promise<FrontDoor | undefined> {
  try {
    return frontDoorIn(await ctx.resources());
  } catch {
    return undefined;
  }
}

/**
 * The verify Lambda: the construct names its function `VerifyFunction`, and CDK's logical id is the
 * construct path plus an eight-character hash (`InboxVerifyFunction1A2B3C4D`).
 */
export function verifyFunctionIn(resources: readonly StackResource[]): string | undefined {
  return resources.find(
    (r) => r.type === 'AWS::Lambda::Function' && /VerifyFunction[0-9A-F]{8}$/.test(r.logicalId),
  )?.physicalId;
}

/** The names of the stack's metric alarms (an alarm's physical id is its name). */
export function alarmNamesIn(resources: readonly StackResource[]): string[] {
  return resources.filter((r) => r.type === 'AWS::CloudWatch::Alarm').map((r) => r.physicalId);
}
