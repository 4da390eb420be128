// The secret items: a provider that issues its own secret fails while its secret is still the stack's
// generated placeholder; one where you choose it may keep it; none at all, or one `secrets` cannot read,
// fails with the command that fixes it.
import { describe, expect, it } from 'vitest';
import { checkSecrets, looksGenerated } from '../../../../../../cli/commands/doctor/checks/secrets';
import { CliError } from '../../../../../../cli/shared/output';
import { parseConfig } from '../../../../../../config';
import { accessDenied, fakeContext, fakeTarget } from '../fake-context';

const config = parseConfig({
  providers: { stripe: { scheme: 'stripe' }, github: { scheme: 'github' } },
});
const outputsPassed = [{ id: 'outputs', title: 'o', status: 'pass' as const, detail: '' }];
/** What Secrets Manager generates for the stack: 48 characters, no punctuation. */
const GENERATED = 'Q7tR2mKx9Lp4Vw8Zc3Nb6Hj1Gf5Ds0AaBbCcDdEeFfGgHhIi';

async function results(secrets: Record<string, string[]>) {
  const ctx = fakeContext({ target: fakeTarget(config, secrets) }, config);
  return Object.fromEntries((await checkSecrets(ctx, outputsPassed)).map((r) => [r.id, r]));
}

describe('checkSecrets', () => {
  it("fails Stripe's generated placeholder, telling to copy Stripe's secret with --value", async () => {
    const byId = await results({ stripe: [GENERATED], github: [GENERATED] });
    expect(byId['secret:stripe']).toMatchObject({ status: 'fail' });
    expect(byId['secret:stripe']?.detail).toContain('still the placeholder the stack generated');
    expect(byId['secret:stripe']?.fix).toContain(
      'npx webhook-inbox secrets rotate stripe --stack WebhookInbox --value <secret>',
    );
    expect(byId['secret:github']).toMatchObject({ status: 'pass' });
    expect(byId['secret:github']?.detail).toContain('GitHub must sign with it');
  });

  it('passes a secret the provider issued, and never prints it', async () => {
    const byId = await results({
      stripe: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      github: ['chosen-secret'],
    });
    expect(byId['secret:stripe']).toMatchObject({ status: 'pass', detail: 'set' });
    expect(JSON.stringify(byId)).not.toContain('whsec_MfKQ');
  });

  it('fails a provider with no secret: every delivery fails closed', async () => {
    const byId = await results({ stripe: ['whsec_x'] });
    expect(byId['secret:github']).toMatchObject({
      status: 'fail',
      detail: 'no secret: every delivery fails closed (401)',
    });
  });

  it('fails when `secrets` cannot read it, naming the permission', async () => {
    const target = fakeTarget(config);
    target.secrets.list = () =>
      Promise.reject(
        Object.assign(new CliError('cannot read the current secret of stripe'), { cause: accessDenied() }),
      );
    const ctx = fakeContext({ target }, config);
    const [stripe] = await checkSecrets(ctx, outputsPassed);
    expect(stripe).toMatchObject({ status: 'fail' });
    expect(stripe?.fix).toContain('secretsmanager:GetSecretValue');
  });
});

describe('checkSecrets when Secrets Manager does not answer', () => {
  it('cannot check, rather than fail with "deploy", a read that was throttled', async () => {
    const target = fakeTarget(config);
    // What `secrets` throws: its own one-line error, SDK's words inside, no cause kept.
    target.secrets.list = () =>
      Promise.reject(
        new CliError(
          'cannot read the AWSCURRENT secret of stripe: secrets GetSecretValue failed: Rate exceeded',
        ),
      );
    const [stripe] = await checkSecrets(fakeContext({ target }, config), outputsPassed);
    expect(stripe).toMatchObject({ status: 'cannot-check' });
    expect(stripe?.detail).toContain('Rate exceeded');
  });
});

describe('looksGenerated', () => {
  it("matches the stack generator's shape only", () => {
    expect(looksGenerated(GENERATED)).toBe(true);
    expect(looksGenerated(`whsec_${GENERATED.slice(6)}`)).toBe(false);
    expect(looksGenerated(GENERATED.slice(1))).toBe(false);
  });
});
