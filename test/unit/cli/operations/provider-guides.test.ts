// When a made-up secret may be stored: never on a stack for a provider that issues its own (it would fail
// every delivery from it), on a local instance for `webhook-inbox send` to sign with, and always where you
// issue the secret yourself.
import { describe, expect, it } from 'vitest';
import { GUIDES, generatedSecretRefusal } from '../../../../cli/operations/provider-guides';

describe('generatedSecretRefusal', () => {
  it('refuses a random secret for a provider that issues its own, on a stack', () => {
    expect(generatedSecretRefusal(GUIDES.stripe, 'aws')).toMatch(/issues this secret/);
  });

  it('allows one locally, unless strict (the console)', () => {
    expect(generatedSecretRefusal(GUIDES.stripe, 'local')).toBeUndefined();
    expect(generatedSecretRefusal(GUIDES.stripe, 'local', true)).toMatch(/issues this secret/);
  });

  it('allows one wherever you issue the secret yourself', () => {
    expect(generatedSecretRefusal(GUIDES.github, 'aws', true)).toBeUndefined();
  });
});
