// Each provider's signing secret: set, readable by `webhook-inbox secrets`, and, for a provider that
// issues its own, no longer the random placeholder the stack created (the provider never signs with it).
import type { ResolvedProvider } from '../../../../config';
import { GUIDES } from '../../../operations/provider-guides';
import { CLI } from '../../../shared/hint';
import { describeError } from '../../../shared/output';
import { isAccessDenied } from '../access-denied';
import { blockedBy, type CheckResult, cannotCheck, fail, pass } from '../checklist';
import type { DoctorContext } from '../ports';
import { isUnavailable } from '../unavailable';
import { OUTPUTS } from './outputs';

export const secretCheckId = (provider: string) => `secret:${provider}`;

/**
 * The value the stack puts in a provider's secret when it creates it: Secrets Manager's generator with
 * 48 characters and no punctuation (lib/webhook-inbox.ts, providerSecret). No provider that issues its own
 * secret issues one of that shape (they carry a prefix such as whsec_, or are hex or shorter), so a current
 * secret of that shape is the placeholder, never set.
 */
export function looksGenerated(secret: string): boolean {
  return /^[A-Za-z0-9]{48}$/.test(secret);
}

export async function checkSecrets(ctx: DoctorContext, done: readonly CheckResult[]): Promise<CheckResult[]> {
  const blocked = blockedBy(done, [OUTPUTS]);
  const results: CheckResult[] = [];
  for (const provider of Object.values(ctx.config.providers)) {
    const id = secretCheckId(provider.id);
    const title = `${provider.id}: its secret is set and readable`;
    if (blocked !== undefined || ctx.target === undefined) {
      results.push(cannotCheck(id, title, blocked ?? 'no target'));
      continue;
    }
    results.push(await checkSecret(ctx, provider, id, title));
  }
  return results;
}

async function checkSecret(
  ctx: DoctorContext,
  provider: ResolvedProvider,
  id: string,
  title: string,
): Promise<CheckResult> {
  const target = ctx.target;
  if (target === undefined) return cannotCheck(id, title, 'no target');
  const stack = `--stack ${ctx.stack.name}`;
  const guide = GUIDES[provider.scheme];
  const setIt =
    guide.issuer === 'provider'
      ? `copy the secret ${guide.name} shows (${guide.where}), then \`${CLI} secrets rotate ${provider.id} ${stack} --value <secret>\``
      : `\`${CLI} secrets rotate ${provider.id} ${stack}\`, then paste it into ${guide.name} (${guide.where})`;
  let secrets: string[];
  try {
    secrets = await target.secrets.list(provider.id);
  } catch (error) {
    if (isUnavailable(error)) {
      return cannotCheck(id, title, `Secrets Manager did not answer this time: ${describeError(error)}`);
    }
    return isAccessDenied(error)
      ? fail(
          id,
          title,
          `\`secrets\` cannot read it: ${describeError(error)}`,
          `grant this machine's credentials secretsmanager:GetSecretValue on ${safeLocation(target, provider.id)}`,
        )
      : fail(
          id,
          title,
          describeError(error),
          'deploy this project (`npx cdk deploy`) with this provider in cdk.json',
        );
  }
  const current = secrets[0];
  if (current === undefined) {
    return fail(id, title, 'no secret: every delivery fails closed (401)', setIt);
  }
  if (looksGenerated(current)) {
    if (guide.issuer === 'provider') {
      return fail(
        id,
        title,
        `still the placeholder the stack generated: ${guide.name} issues its own secret and signs with that one only`,
        setIt,
      );
    }
    return pass(
      id,
      title,
      `the secret the stack generated; ${guide.name} must sign with it (${guide.where})`,
    );
  }
  return pass(id, title, secrets.length > 1 ? 'set; the previous one is still accepted too' : 'set');
}

function safeLocation(target: NonNullable<DoctorContext['target']>, provider: string): string {
  try {
    return target.secrets.location(provider);
  } catch {
    return 'its secret';
  }
}
