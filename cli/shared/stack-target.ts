// The deployed-stack side of the CLI: a Target built from the stack's outputs, with the provider secrets
// in Secrets Manager. The SDK calls are the adapters' (stack-outputs.ts, secrets-manager-store.ts in
// lambdas/adapters); what is left here is the CLI's part: which outputs a stack must have, where each
// provider's secret is, and the messages and hints for failures.
import { type Config, forwardDestinations } from '../../config';
import { outputSuffix, STACK_OUTPUTS } from '../../config/telemetry';
import {
  type AwsClients,
  createAwsClients,
  createCloudFormationClient,
} from '../../lambdas/adapters/clients';
import type { SecretStage } from '../../lambdas/adapters/secrets';
import { SECRET_STAGES, SecretsManagerStore } from '../../lambdas/adapters/secrets-manager-store';
import { destinationOutputs, readStackOutputs } from '../../lambdas/adapters/stack-outputs';
import { WebhookInboxError } from '../../lambdas/core/errors';
import { CliError, describeError } from './output';
import type { SecretStore, Target } from './target-types';

/** The outputs every command needs; `doctor` reports the ones a stack lacks. */
export const REQUIRED_OUTPUTS = [
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

/** A failed read of the stack's outputs (readStackOutputs), as the CLI reports it. */
export function stackReadFailure(stack: string, error: unknown): CliError {
  return awsFailure(
    `cannot read stack ${stack}`,
    error,
    /region/i.test(describeError(sdkError(error)))
      ? 'pass --region'
      : 'check the stack name, --region and --profile',
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
    throw stackReadFailure(options.stack, error);
  } finally {
    cloudformation.destroy();
  }
  return targetFromOutputs(options, config, { region, outputs });
}

/** The Target of a stack whose outputs are read already; throws CliError naming the outputs it lacks. */
export function targetFromOutputs(
  options: { stack: string },
  config: Config,
  { region, outputs }: { region: string; outputs: Record<string, string> },
): Target {
  const missing = REQUIRED_OUTPUTS.filter((name) => !outputs[name]);
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
  // A destination the stack does not have yet (cdk.json changed, not deployed) is left out.
  const { destinations, forwarderFunctionName } = destinationOutputs(outputs, forwardDestinations(config));
  const destinationSecretArn = (id: string): string => {
    const arn = destinations[id]?.secretArn;
    if (!arn) {
      throw new CliError(
        `stack ${options.stack} has no signing secret for destination ${id}`,
        'is it an http destination, deployed with this cdk.json?',
      );
    }
    return arn;
  };
  const store = async () => new SecretsManagerStore((await getClients()).secrets);
  return {
    kind: 'aws',
    config,
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
    secrets: stackSecrets(store, secretArn),
    destinations,
    destinationSecrets: stackSecrets(store, destinationSecretArn),
    ...(forwarderFunctionName === undefined ? {} : { forwarderFunctionName }),
    clients: getClients,
    close: () => {
      for (const client of Object.values(clients ?? {})) client.destroy();
    },
  };
}

/** The SecretStore of a stack: each provider's secret in Secrets Manager, through SecretsManagerStore. */
export function stackSecrets(
  store: () => Promise<SecretsManagerStore>,
  secretArn: (provider: string) => string,
): SecretStore {
  // secretArn's own CliError is reported inside these messages too, as it always was.
  const read = async (provider: string, stage: SecretStage) => {
    try {
      return await (await store()).read(secretArn(provider), stage);
    } catch (error) {
      throw awsFailure(`cannot read the ${stage} secret of ${provider}`, error);
    }
  };
  const list = async (provider: string) => {
    const versions = await Promise.all(SECRET_STAGES.map((stage) => read(provider, stage)));
    return versions.filter((s): s is string => typeof s === 'string');
  };
  return {
    location: secretArn,
    list,
    rotate: async (provider, value) => {
      try {
        await (await store()).put(secretArn(provider), value);
      } catch (error) {
        throw awsFailure(`cannot store the new secret of ${provider}`, error);
      }
      return list(provider);
    },
  };
}
