// cli/shared/stack-target.ts's side of a deployed stack: the adapters' failures as CliErrors with the
// messages and hints the CLI has always printed (quoting the SDK's own words), and a stack's secrets shown
// and rotated.
import { describe, expect, it } from 'vitest';
import { CliError } from '../../../../cli/shared/output';
import { stackReadFailure, stackSecrets } from '../../../../cli/shared/stack-target';
import { SecretsManagerStore } from '../../../../lambdas/adapters/secrets-manager-store';
import { DependencyError, StackNotFoundError } from '../../../../lambdas/core/errors';
import { fakeSecretsManager } from '../../../support/fake-secrets-manager';
import { injectFault } from '../../../support/faults';

const CREDENTIALS_HINT = 'check your AWS credentials (--profile NAME, or `aws sso login`)';
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:webhook-inbox/github-AbCdEf';

const sdkError = (name: string, message: string) => Object.assign(new Error(message), { name });
const describeStacksFailed = (cause: Error) =>
  new DependencyError('cloudformation', 'DescribeStacks', { cause });

describe('stackReadFailure', () => {
  it.each([
    ['ExpiredTokenException', 'The security token included in the request is expired'],
    ['CredentialsProviderError', 'Could not load credentials from any providers'],
    ['UnrecognizedClientException', 'The security token included in the request is invalid'],
    ['InvalidClientTokenId', 'The security token included in the request is invalid'],
    ['Error', 'The SSO session associated with this profile has expired'],
  ])('hints at credentials for %s, quoting the SDK message', (name, message) => {
    const error = stackReadFailure('my-inbox', describeStacksFailed(sdkError(name, message)));
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe(`cannot read stack my-inbox: ${message}`);
    expect(error.hint).toBe(CREDENTIALS_HINT);
  });

  it('says to pass --region when the client has none', () => {
    const error = stackReadFailure('my-inbox', describeStacksFailed(new Error('Region is missing')));
    expect(error.message).toBe('cannot read stack my-inbox: Region is missing');
    expect(error.hint).toBe('pass --region');
  });

  it("quotes CloudFormation's refusal for a stack it does not have, and hints at the name, region and profile", () => {
    const refusal = sdkError('ValidationError', 'Stack with id other does not exist');
    const error = stackReadFailure('other', new StackNotFoundError('other', { cause: refusal }));
    expect(error.message).toBe('cannot read stack other: Stack with id other does not exist');
    expect(error.hint).toBe('check the stack name, --region and --profile');
  });

  it('says "stack NAME not found" when DescribeStacks answered with no stack', () => {
    const error = stackReadFailure('gone', new StackNotFoundError('gone'));
    expect(error.message).toBe('cannot read stack gone: stack gone not found');
    expect(error.hint).toBe('check the stack name, --region and --profile');
  });
});

describe('stackSecrets', () => {
  function setup(versions = { current: 'v1' } as { current?: string; previous?: string }) {
    const fake = fakeSecretsManager({ [ARN]: versions });
    const secrets = stackSecrets(
      async () => new SecretsManagerStore(fake.client),
      (provider) => {
        if (provider !== 'github')
          throw new CliError(`stack my-inbox has no secret for provider ${provider}`);
        return ARN;
      },
    );
    return { ...fake, secrets };
  }

  it('lists AWSCURRENT alone before the first rotation, and rotates with PutSecretValue', async () => {
    const { secrets, puts } = setup();
    expect(await secrets.list('github')).toEqual(['v1']);
    expect(await secrets.rotate('github', 'v2')).toEqual(['v2', 'v1']);
    expect(puts).toEqual([{ SecretId: ARN, SecretString: 'v2' }]);
  });

  it('names the stage that could not be read', async () => {
    const { secrets, failingStages } = setup();
    failingStages.add('AWSPREVIOUS');
    await expect(secrets.list('github')).rejects.toMatchObject({
      name: 'CliError',
      message: 'cannot read the AWSPREVIOUS secret of github: injected fault: service unavailable',
    });
  });

  it('gives the credentials hint for a rotation refused for expired credentials', async () => {
    const { secrets, client } = setup();
    injectFault(client, {
      commands: 'PutSecretValueCommand',
      error: () => sdkError('ExpiredTokenException', 'The security token included in the request is expired'),
    });
    await expect(secrets.rotate('github', 'v2')).rejects.toMatchObject({
      message: 'cannot store the new secret of github: The security token included in the request is expired',
      hint: CREDENTIALS_HINT,
    });
  });

  it('reports a provider the stack has no secret for inside the read message, as before', async () => {
    const { secrets } = setup();
    await expect(secrets.list('stripe')).rejects.toMatchObject({
      message:
        'cannot read the AWSCURRENT secret of stripe: stack my-inbox has no secret for provider stripe',
    });
  });
});
