// Signing secrets in Secrets Manager, created or imported: the providers' and the HTTP destinations' alike.
import type { RemovalPolicy } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ConfigError } from '../config/index';

/**
 * The secret at `arn`. IAM grants on an imported secret need its complete ARN, with the six-character
 * suffix Secrets Manager appends to the name (aws-cdk-lib would reject it too, but with a stack trace), so
 * a partial ARN is refused naming the config key.
 * @throws ConfigError naming `configKey`
 */
export function importCompleteSecret(
  scope: Construct,
  id: string,
  arn: string,
  configKey: string,
): secretsmanager.ISecret {
  if (!/-[A-Za-z0-9]{6}$/.test(arn)) {
    throw new ConfigError(
      `${configKey}: must be the complete ARN, ending in the 6-character suffix Secrets Manager adds ` +
        '(as `aws secretsmanager describe-secret` prints it)',
    );
  }
  return secretsmanager.Secret.fromSecretCompleteArn(scope, id, arn);
}

/** The secret the config imports (`importArn`), or a new one with a generated value. */
export function signingSecret(
  scope: Construct,
  id: string,
  options: {
    importArn: string | undefined;
    /** The config key of `importArn`, for the error. */
    configKey: string;
    description: string;
    generate: secretsmanager.SecretStringGenerator;
    removalPolicy: RemovalPolicy;
  },
): secretsmanager.ISecret {
  if (options.importArn) return importCompleteSecret(scope, id, options.importArn, options.configKey);
  return new secretsmanager.Secret(scope, id, {
    description: options.description,
    generateSecretString: options.generate,
    removalPolicy: options.removalPolicy,
  });
}
