// Who the operator is on AWS, for the record of a replay (`lastReplayedBy`): STS GetCallerIdentity, which
// needs no permission and names the caller's ARN (a role session for SSO or an assumed role).
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';

/** The caller's ARN, or undefined if STS does not answer (the record then names nobody). */
export async function callerArn(options: { region?: string } = {}): Promise<string | undefined> {
  const client = new STSClient(options.region === undefined ? {} : { region: options.region });
  try {
    const { Arn: arn } = await client.send(new GetCallerIdentityCommand({}));
    return arn;
  } catch {
    return undefined;
  } finally {
    client.destroy();
  }
}
