// Storing a secret the operator copies from the provider's dashboard (`secrets set`, and `endpoints
// register` for the providers no API hands one out for): read once from standard input, checked for the
// provider's format and that it can sign, then stored as the current secret with the one before kept valid.
import type { ResolvedProvider } from '../../../config';
import { UsageError } from '../../shared/output';
import type { LineInput } from '../../shared/read-line';
import type { SecretStore } from '../../shared/target-types';

/** Reads one secret from standard input, checks it can sign for the provider, and stores it (rotate). */
export async function readAndStoreSecret(
  provider: ResolvedProvider,
  secrets: SecretStore,
  url: string,
  io: LineInput,
): Promise<string[]> {
  const { readOneLine } = await import('../../shared/read-line');
  const { manualSecretRefusal } = await import('./manual-secrets');
  const value = await readOneLine(io, `${provider.id} secret (not shown): `);
  if (value === '') throw new UsageError(`no secret on standard input for ${provider.id}`);
  const refusal = manualSecretRefusal(provider.scheme, value);
  if (refusal !== undefined)
    throw new UsageError(`refused the ${provider.id} secret: ${refusal}; nothing stored`);
  const { signDelivery } = await import('../signed-delivery');
  try {
    signDelivery(
      provider,
      { body: Buffer.from('{}'), deliveryId: 'msg_check', extraHeaders: {} },
      { secret: value, timestamp: Math.floor(Date.now() / 1000), url },
    );
  } catch {
    throw new UsageError(
      `refused the ${provider.id} secret: not a usable ${provider.scheme} secret; nothing stored`,
    );
  }
  return secrets.rotate(provider.id, value);
}
