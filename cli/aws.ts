// The deployed-stack side of the CLI: a Target built from the stack's outputs, with the provider secrets
// in Secrets Manager. The SDK calls are the adapters' (lambdas/adapters/stack-outputs.ts, ...); what is
// left here is the CLI's part: which outputs a stack must have, and the messages and hints for failures.
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { Config } from '../config';
import { outputSuffix, STACK_OUTPUTS } from '../config/telemetry';
import { type AwsClients, createAwsClients, createCloudFormationClient } from '../lambdas/adapters/clients';
import { readStackOutputs } from '../lambdas/adapters/stack-outputs';
import { WebhookInboxError } from '../lambdas/core/errors';
import { CliError, describeError } from './output';
import type { SecretStore, Target } from './target-types';

const REQUIRED = [
  STACK_OUTPUTS.apiUrl,
  STACK_OUTPUTS.queueUrl,
  STACK_OUTPUTS.queueArn,
  STACK_OUTPUTS.dlqUrl,
  STACK_OUTPUTS.dlqArn,
  STACK_OUTPUTS.tableName,
  STACK_OUTPUTS.bucketName,
] as const;

/** The SDK's own error behind an adapter's: its words are what the messages quote (and people search for). */
function sdkError(error: unknown): unknown {
  return error instanceof WebhookInboxError && error.cause !== undefined ? error.cause : error;
}

function awsFailure(action: string, error: unknown, hint?: string): CliError {
  const cause = sdkError(error);
  const name = cause instanceof Error ? cause.name : '';
  const credentials = /Credential|ExpiredToken|UnrecognizedClient|InvalidClientTokenId|SSO/i.test(
    `${name} ${describeError(cause)}`,
  );
  return new CliError(
    `${action}: ${describeError(cause)}`,
    credentials ? 'check your AWS credentials (--profile NAME, or `aws sso login`)' : hint,
  );
}

export async function awsTarget(
  options: { stack: string; region?: string; profile?: string },
  config: Config,
): Promise<Target> {
  // The default credential chain reads AWS_PROFILE; set it before any client exists.
  if (options.profile) process.env.AWS_PROFILE = options.profile;
  const cloudformation = createCloudFormationClient(options.region ? { region: options.region } : {});
  let region: string;
  let outputs: Record<string, string>;
  try {
    ({ region, outputs } = await readStackOutputs(cloudformation, options.stack));
  } catch (error) {
    throw awsFailure(
      `cannot read stack ${options.stack}`,
      error,
      /region/i.test(describeError(sdkError(error)))
        ? 'pass --region'
        : 'check the stack name, --region and --profile',
    );
  } finally {
    cloudformation.destroy();
  }
  const missing = REQUIRED.filter((name) => !outputs[name]);
  if (missing.length > 0) {
    throw new CliError(
      `stack ${options.stack} (${region}) lacks the output${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
      'is it a webhook-inbox stack, deployed with this version?',
    );
  }
  const output = (name: string) => outputs[name] as string;
  const gatewayUrl = output(STACK_OUTPUTS.apiUrl).replace(/\/+$/, '');
  let clients: AwsClients | undefined;
  const getClients = async () => {
    clients ??= createAwsClients({ region });
    return clients;
  };
  const secretArn = (provider: string): string => {
    const arn =
      outputs[`${STACK_OUTPUTS.secretArnPrefix}${outputSuffix(provider)}`] ??
      config.providers[provider]?.secretArn;
    if (!arn) {
      throw new CliError(
        `stack ${options.stack} has no secret for provider ${provider}`,
        'deploy the stack with this provider in cdk.json',
      );
    }
    return arn;
  };
  return {
    kind: 'aws',
    description: `stack ${options.stack} (${region})`,
    gatewayUrl,
    region,
    tableName: output(STACK_OUTPUTS.tableName),
    queueUrl: output(STACK_OUTPUTS.queueUrl),
    queueArn: output(STACK_OUTPUTS.queueArn),
    dlqUrl: output(STACK_OUTPUTS.dlqUrl),
    dlqArn: output(STACK_OUTPUTS.dlqArn),
    bucketName: output(STACK_OUTPUTS.bucketName),
    endpointUrl: (provider) =>
      outputs[`${STACK_OUTPUTS.endpointPrefix}${outputSuffix(provider)}`] ??
      `${gatewayUrl}/webhooks/${encodeURIComponent(provider)}`,
    secrets: secretsManagerStore(async () => (await getClients()).secrets, secretArn),
    clients: getClients,
    close: () => {
      for (const client of Object.values(clients ?? {})) client.destroy();
    },
  };
}

function secretsManagerStore(
  client: () => Promise<SecretsManagerClient>,
  secretArn: (provider: string) => string,
): SecretStore {
  const version = async (provider: string, stage: 'AWSCURRENT' | 'AWSPREVIOUS') => {
    try {
      const { SecretString } = await (await client()).send(
        new GetSecretValueCommand({ SecretId: secretArn(provider), VersionStage: stage }),
      );
      return SecretString;
    } catch (error) {
      if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
      throw awsFailure(`cannot read the ${stage} secret of ${provider}`, error);
    }
  };
  const list = async (provider: string) => {
    const [current, previous] = await Promise.all([
      version(provider, 'AWSCURRENT'),
      version(provider, 'AWSPREVIOUS'),
    ]);
    return [current, previous].filter((s): s is string => typeof s === 'string');
  };
  return {
    location: secretArn,
    list,
    rotate: async (provider, value) => {
      try {
        // Secrets Manager moves AWSCURRENT to the new version and AWSPREVIOUS to the old one.
        await (await client()).send(
          new PutSecretValueCommand({ SecretId: secretArn(provider), SecretString: value }),
        );
      } catch (error) {
        throw awsFailure(`cannot store the new secret of ${provider}`, error);
      }
      return list(provider);
    },
  };
}
