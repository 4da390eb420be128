// What `webhook-inbox endpoints register` needs of a provider whose API registers webhook endpoints: list
// the ones there are, create one, and the provider's own way to change the signing secret without a
// rejected delivery. One implementation per provider, each loaded only by the registering commands, so no
// provider SDK reaches a Lambda bundle. Pure types: no SDK import here.

/** An endpoint as the provider lists it. */
export interface RemoteEndpoint {
  /** The provider's id for it (Stripe `we_...`, GitHub's hook id, Square `wbhk_...`, ...). */
  id: string;
  url: string;
  /** The events it is subscribed to, as the provider names them; `['*']` for all. */
  events: readonly string[];
  /** When the provider says it was created (ISO 8601), where it says. */
  createdAt?: string;
}

/** Who chooses the signing secret, which decides the order of the steps. */
export type SecretOrigin =
  /** We generate it and send it in the create call (GitHub): it is stored before the provider can sign with it. */
  | 'ours'
  /** The provider returns it from the create call (Stripe, Paddle, Square, Linear): stored at once. */
  | 'theirs';

/**
 * How `--replace` changes the secret of an endpoint that exists, without a delivery the inbox refuses:
 * - `update-secret`: store a new secret of ours, then update the endpoint to sign with it (GitHub);
 * - `rotate-secret`: the provider's rotation call returns the new secret, which is stored at once (Square);
 * - `recreate`: create a new endpoint, store its secret, then delete the old endpoint (Stripe, Paddle, Linear).
 * In each, the secret it replaces stays valid as the previous one until the provider stops using it.
 */
export type ReplaceStrategy = 'update-secret' | 'rotate-secret' | 'recreate';

export interface CreateInput {
  url: string;
  /** Provider event names; undefined: every event the provider allows (Stripe `*`, GitHub `*`, ...). */
  events?: readonly string[];
  /** The secret to sign with, when the origin is `ours`. */
  secret?: string;
}

export interface Created {
  endpoint: RemoteEndpoint;
  /** The signing secret the provider returned (origin `theirs`). Never printed or logged. */
  secret?: string;
}

/**
 * A provider's registration API. Every method throws a RegistrationError (registration/errors.ts)
 * with a reason code for an answer it understands (a refused key, a missing scope, the wrong mode, a
 * provider outage), never with the credential, a secret or a response body that could hold one.
 */
export interface Registrar {
  /** The provider's name, for sentences: `Stripe`, `GitHub`. */
  readonly name: string;
  readonly secretOrigin: SecretOrigin;
  readonly replaceStrategy: ReplaceStrategy;
  /** Every endpoint the credential can see, all pages. */
  list(): Promise<RemoteEndpoint[]>;
  create(input: CreateInput): Promise<Created>;
  /** `update-secret` only. */
  updateSecret?(endpoint: RemoteEndpoint, secret: string): Promise<void>;
  /** `rotate-secret` only: the new secret, which the provider signs with from now on. */
  rotateSecret?(endpoint: RemoteEndpoint): Promise<string>;
  /** `recreate` only, and to undo a create whose secret could not be stored. */
  delete?(endpoint: RemoteEndpoint): Promise<void>;
}

/** What builds a provider's registrar: its credential, where its API is, and the provider's own options. */
export interface RegistrarInput {
  /** The API key or token: from the environment or standard input, never from argv. */
  credential: string;
  /** `--api-base`: another API host (GitHub Enterprise Server, a test server). @default the provider's public API */
  apiBase?: string;
  /** GitHub: `owner/repo` (`--repo`) or an organisation (`--org`). */
  repo?: string;
  org?: string;
  /** Stripe: the mode the key must be for (`sk_test_`/`rk_test_` or `sk_live_`/`rk_live_`). */
  mode?: 'test' | 'live';
}
