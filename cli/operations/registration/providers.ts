// Which registrar speaks for a scheme, and where its credential comes from. The registrars load their SDKs
// when called, so this map costs nothing until `endpoints register` or `endpoints status` runs.
import type { SchemeName } from '../../../config/schema';
import type { Registrar, RegistrarInput } from './registrar';

export interface RegistrarEntry {
  /** The environment variable the credential is read from (or `--token-stdin`). */
  credentialEnv: string;
  load(): Promise<(input: RegistrarInput) => Registrar>;
}

export const REGISTRARS: Partial<Record<SchemeName, RegistrarEntry>> = {
  github: {
    credentialEnv: 'GITHUB_TOKEN',
    load: async () => (await import('./github')).githubRegistrar,
  },
  stripe: {
    credentialEnv: 'STRIPE_API_KEY',
    load: async () => (await import('./stripe')).stripeRegistrar,
  },
  paddle: {
    credentialEnv: 'PADDLE_API_KEY',
    load: async () => (await import('./paddle')).paddleRegistrar,
  },
  square: {
    credentialEnv: 'SQUARE_ACCESS_TOKEN',
    load: async () => (await import('./square')).squareRegistrar,
  },
  linear: {
    credentialEnv: 'LINEAR_API_KEY',
    load: async () => (await import('./linear')).linearRegistrar,
  },
};

/** Providers that sign with an app-level secret no API returns: the operator pastes it once. */
export const MANUAL_SCHEMES = ['slack', 'shopify', 'zoom'] as const satisfies readonly SchemeName[];
export type ManualScheme = (typeof MANUAL_SCHEMES)[number];

export function isManualScheme(scheme: SchemeName): scheme is ManualScheme {
  return (MANUAL_SCHEMES as readonly string[]).includes(scheme);
}
