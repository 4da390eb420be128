// Square's Webhook Subscriptions API through the official `square` SDK. Square returns the signature key
// from the create call and rotates it with its own call, so the inbox never chooses a Square secret.
// Subscriptions belong to the application, not a seller: only the application's personal access token
// works here, never a seller's OAuth token.
import { randomUUID } from 'node:crypto';
import { RegistrationError } from './errors';
import type { Created, CreateInput, Registrar, RegistrarInput, RemoteEndpoint } from './registrar';

export const SQUARE_PRODUCTION = 'https://connect.squareup.com';
export const SQUARE_SANDBOX = 'https://connect.squareupsandbox.com';

/**
 * The API version the subscription is created with, the same one the SDK sends in `Square-Version`, so
 * the event types listed and the payloads delivered describe the same objects.
 */
export const SQUARE_API_VERSION = '2026-09-16';

/**
 * How many times a create or a rotation is sent, each time with the same idempotency key, when Square
 * does not answer usefully. The call may have taken effect with its answer lost: only a repeat with the
 * same key gets that answer (the signature key) back. Without it, a subscription would exist whose key the
 * inbox never learnt, and a later run would find it "already registered".
 */
export const SQUARE_WRITE_ATTEMPTS = 3;

const READ_SCOPE = 'DEVELOPER_APPLICATION_WEBHOOKS_READ';
const WRITE_SCOPE = 'DEVELOPER_APPLICATION_WEBHOOKS_WRITE';

/** The SDK surface this module uses, so a failure is mapped in one place whichever call made it. */
type SquareSdk = typeof import('square');
type Subscription = import('square').Square.WebhookSubscription;

/**
 * The CLI is bundled with esbuild's code splitting, which turns a dynamic import of this CommonJS package
 * into a chunk whose only export is `default` (the module.exports object): `SquareClient` would be undefined
 * there while it is present under tsx and vitest. Both shapes are read here.
 */
async function loadSdk(): Promise<SquareSdk> {
  const loaded = (await import('square')) as SquareSdk & { default?: SquareSdk };
  return loaded.default?.SquareClient ? loaded.default : loaded;
}

async function loadClient(input: RegistrarInput) {
  const sdk = await loadSdk();
  const client = new sdk.SquareClient({
    token: input.credential,
    baseUrl: input.apiBase ?? SQUARE_PRODUCTION,
    // No retries by the SDK, with its backoff: a read is safe to run again with the command, and the
    // writes are repeated here, with the idempotency key that recovers a lost answer (see idempotent).
    maxRetries: 0,
    timeoutInSeconds: 30,
  });
  return { sdk, client };
}

function toEndpoint(subscription: Subscription): RemoteEndpoint {
  return {
    id: subscription.id ?? '',
    url: subscription.notificationUrl ?? '',
    events: subscription.eventTypes ?? [],
    ...(subscription.createdAt ? { createdAt: subscription.createdAt } : {}),
  };
}

/** The scopes Square names in an INSUFFICIENT_SCOPES detail ("... for the following scopes: A, B"). */
function scopesNamed(detail: string | undefined): string | undefined {
  const match = /scopes?:\s*([A-Z_]+(?:\s*,\s*[A-Z_]+)*)/.exec(detail ?? '');
  return match?.[1];
}

/**
 * Square's `{errors:[{category, code, detail}]}` and the SDK's own failures, as one RegistrationError.
 * Only codes and scope names reach the message: a detail may echo what was sent.
 */
function toRegistrationError(sdk: SquareSdk, error: unknown, scope: string): RegistrationError {
  if (error instanceof RegistrationError) return error;
  if (error instanceof sdk.SquareTimeoutError) {
    return new RegistrationError(
      'provider_unavailable',
      'Square did not answer in time; run the command again (it lists before it creates)',
    );
  }
  if (!(error instanceof sdk.SquareError) || error.statusCode === undefined) {
    return new RegistrationError('provider_unavailable', 'Square could not be reached; try again');
  }
  const status = error.statusCode;
  const first = error.errors[0];
  const code = first?.code;
  if (
    status === 401 ||
    code === 'UNAUTHORIZED' ||
    code === 'ACCESS_TOKEN_EXPIRED' ||
    code === 'ACCESS_TOKEN_REVOKED'
  ) {
    return new RegistrationError(
      'refused_credential',
      `Square refused the access token (${code ?? status}): use the application's personal access token`,
    );
  }
  if (status === 403 || code === 'INSUFFICIENT_SCOPES' || code === 'FORBIDDEN') {
    const named = (code === 'INSUFFICIENT_SCOPES' && scopesNamed(first?.detail)) || scope;
    return new RegistrationError(
      'missing_scope',
      `Square: the access token lacks ${named}; webhook subscriptions need the application's personal access token, not a seller's OAuth token`,
    );
  }
  if (status === 404) return new RegistrationError('not_found', 'Square has no such webhook subscription');
  if (status >= 500 || status === 429) {
    return new RegistrationError(
      'provider_unavailable',
      `Square answered ${status}; nothing was decided, try again`,
    );
  }
  if (status === 400 || status === 422) {
    const field = first && 'field' in first && typeof first.field === 'string' ? ` (${first.field})` : '';
    return new RegistrationError('rejected_request', `Square refused the request: ${code ?? status}${field}`);
  }
  return new RegistrationError('unexpected_answer', `Square answered ${status} ${code ?? ''}`.trim());
}

export function squareRegistrar(input: RegistrarInput): Registrar {
  const loaded = loadClient(input);
  // A rejected promise nobody awaited yet would be reported as unhandled; each call awaits it.
  loaded.catch(() => undefined);

  async function call<T>(
    scope: string,
    run: (client: Awaited<typeof loaded>['client']) => Promise<T>,
  ): Promise<T> {
    const { sdk, client } = await loaded;
    try {
      return await run(client);
    } catch (error) {
      throw toRegistrationError(sdk, error, scope);
    }
  }

  /** Repeats `run` with one idempotency key while the failure says nothing was decided. */
  async function idempotent<T>(
    scope: string,
    run: (client: Awaited<typeof loaded>['client'], key: string) => Promise<T>,
  ) {
    const key = randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        return await call(scope, (client) => run(client, key));
      } catch (error) {
        const unsettled = error instanceof RegistrationError && error.reason === 'provider_unavailable';
        if (!unsettled || attempt >= SQUARE_WRITE_ATTEMPTS) throw error;
      }
    }
  }

  /** Square requires event_types; "every event" is every type this API version offers. */
  const allEventTypes = () =>
    call(READ_SCOPE, async (client) => {
      const answer = await client.webhooks.eventTypes.list({ apiVersion: SQUARE_API_VERSION });
      const types = answer.eventTypes ?? [];
      if (types.length === 0)
        throw new RegistrationError('unexpected_answer', 'Square listed no webhook event types');
      return types;
    });

  return {
    name: 'Square',
    secretOrigin: 'theirs',
    replaceStrategy: 'rotate-secret',

    // Enabled subscriptions only (Square's default): a disabled one delivers nothing, so it does not
    // count as registered.
    list: () =>
      call(READ_SCOPE, async (client) => {
        const endpoints: RemoteEndpoint[] = [];
        const page = await client.webhooks.subscriptions.list({});
        for await (const subscription of page) endpoints.push(toEndpoint(subscription));
        return endpoints;
      }),

    async create({ url, events }: CreateInput): Promise<Created> {
      const eventTypes = events && events.length > 0 ? [...events] : await allEventTypes();
      return idempotent(WRITE_SCOPE, async (client, idempotencyKey) => {
        const answer = await client.webhooks.subscriptions.create({
          idempotencyKey,
          subscription: {
            name: 'webhook-inbox',
            enabled: true,
            eventTypes,
            // Exactly the URL the inbox verifies against: Square signs it together with the body.
            notificationUrl: url,
            apiVersion: SQUARE_API_VERSION,
          },
        });
        const subscription = answer.subscription;
        if (!subscription?.id || !subscription.signatureKey) {
          throw new RegistrationError(
            'unexpected_answer',
            'Square created a subscription without an id or signature key',
          );
        }
        return { endpoint: toEndpoint(subscription), secret: subscription.signatureKey };
      });
    },

    rotateSecret: (endpoint) =>
      idempotent(WRITE_SCOPE, async (client, idempotencyKey) => {
        const answer = await client.webhooks.subscriptions.updateSignatureKey({
          subscriptionId: endpoint.id,
          idempotencyKey,
        });
        if (!answer.signatureKey) {
          throw new RegistrationError(
            'unexpected_answer',
            'Square rotated the signature key but returned none',
          );
        }
        return answer.signatureKey;
      }),

    delete: (endpoint) =>
      call(WRITE_SCOPE, async (client) => {
        await client.webhooks.subscriptions.delete({ subscriptionId: endpoint.id });
      }),
  };
}
