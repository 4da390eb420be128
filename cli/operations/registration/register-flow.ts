// The order of steps that registers the inbox with a provider and stores the signing secret, so that at no
// point does the provider sign with a secret the inbox refuses. Pure: the provider (Registrar) and the
// secret store come in as interfaces, so every branch, including a provider that fails halfway, is tested
// in memory.
//
//   create, origin `ours`:    create with the current secret; none yet: generate -> store -> create with it
//   create, origin `theirs`:  create -> store what it returned -> (store failed) delete what was created
//   replace, update-secret:   generate -> store -> update each endpoint -> (none updated) store the old again
//   replace, rotate-secret:   rotate at the provider -> store at once
//   replace, recreate:        create -> store its secret -> delete every older endpoint for the URL

import { CLI } from '../../shared/hint';
import type { SecretStore } from '../../shared/target-types';
import { RegistrationError } from './errors';
import type { Registrar, RemoteEndpoint } from './registrar';

export interface RegisterFlowInput {
  registrar: Registrar;
  secrets: SecretStore;
  /** The provider's id in the inbox's configuration: the secret store's key. */
  providerId: string;
  /** The URL the provider is to post to. */
  url: string;
  events?: readonly string[];
  replace: boolean;
  /** A new secret in the provider's format, for origin `ours`. */
  generateSecret: () => string;
}

export type RegisterOutcome =
  /** An endpoint for this URL exists and `--replace` was not given: nothing changed. */
  | { kind: 'exists'; endpoints: RemoteEndpoint[] }
  | { kind: 'created'; endpoint: RemoteEndpoint }
  /** `--replace`: the endpoint that signs now, and the older ones deleted (recreate only). */
  | { kind: 'replaced'; endpoint: RemoteEndpoint; deleted: RemoteEndpoint[] };

/**
 * A step failed after others had changed something. The message says, on one line, what was done, what
 * was not, and what to do; `reason` is the failed step's.
 */
export class RegistrationIncomplete extends RegistrationError {
  override name = 'RegistrationIncomplete';
  constructor(
    cause: unknown,
    readonly done: readonly string[],
    readonly notDone: readonly string[],
    readonly next: string,
  ) {
    const failed = cause instanceof RegistrationError ? cause : undefined;
    super(
      failed?.reason ?? 'unexpected_answer',
      [
        `${failed?.message ?? 'a step failed'}`,
        done.length > 0 ? `done: ${done.join('; ')}` : 'nothing was changed',
        ...(notDone.length > 0 ? [`not done: ${notDone.join('; ')}`] : []),
        next,
      ].join('. '),
      { cause },
    );
  }
}

/** A secret store failure as a RegistrationError: its message names no secret (the stores' never do). */
function storeFailed(error: unknown): RegistrationError {
  if (error instanceof RegistrationError) return error;
  const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new RegistrationError('provider_unavailable', `could not store the secret: ${detail}`, {
    cause: error,
  });
}

const AGAIN = 'Run the same command again';

export async function registerEndpoint(input: RegisterFlowInput): Promise<RegisterOutcome> {
  const { registrar, url } = input;
  const matching = (await registrar.list()).filter((endpoint) => endpoint.url === url);
  if (matching.length > 0 && !input.replace) return { kind: 'exists', endpoints: matching };
  if (matching.length === 0) return { kind: 'created', endpoint: await create(input) };
  switch (registrar.replaceStrategy) {
    case 'update-secret':
      return updateSecret(input, matching);
    case 'rotate-secret':
      return rotateSecret(input, matching);
    case 'recreate':
      return recreate(input, matching);
  }
}

async function create(input: RegisterFlowInput): Promise<RemoteEndpoint> {
  const { registrar, secrets, providerId, url, events } = input;
  if (registrar.secretOrigin === 'ours') {
    const before = (await secrets.list(providerId))[0];
    if (before !== undefined) {
      // The inbox accepts it already, and other endpoints for the URL that this credential cannot list
      // (another repository's hook) may sign with it: a new secret here would push theirs out of the two kept
      // by the second registration.
      try {
        return (await registrar.create({ url, events, secret: before })).endpoint;
      } catch (error) {
        throw new RegistrationIncomplete(error, [], [`no ${registrar.name} endpoint was created`], AGAIN);
      }
    }
    const secret = input.generateSecret();
    // Stored first: the provider may sign a ping the moment the endpoint exists.
    try {
      await secrets.rotate(providerId, secret);
    } catch (error) {
      throw storeFailed(error);
    }
    try {
      return (await registrar.create({ url, events, secret })).endpoint;
    } catch (error) {
      throw new RegistrationIncomplete(
        error,
        [`stored a new ${providerId} secret`],
        [`no ${registrar.name} endpoint was created`],
        AGAIN,
      );
    }
  }
  const created = await registrar.create({ url, events });
  return (await storeOrUndo(input, created.endpoint, created.secret)).endpoint;
}

/** Stores a secret the provider returned for a new endpoint; if it cannot be stored, deletes the endpoint. */
async function storeOrUndo(
  input: RegisterFlowInput,
  endpoint: RemoteEndpoint,
  secret: string | undefined,
): Promise<{ endpoint: RemoteEndpoint }> {
  const { registrar, secrets, providerId } = input;
  let failure: unknown;
  if (secret === undefined || secret === '') {
    failure = new RegistrationError(
      'unexpected_answer',
      `${registrar.name} returned no signing secret for endpoint ${endpoint.id}`,
    );
  } else {
    try {
      await secrets.rotate(providerId, secret);
      return { endpoint };
    } catch (error) {
      failure = storeFailed(error);
    }
  }
  // An endpoint whose secret the inbox lacks signs deliveries that are all refused: undo it.
  if (!registrar.delete) {
    throw new RegistrationIncomplete(
      failure,
      [`created ${registrar.name} endpoint ${endpoint.id}`],
      ['its secret was not stored, and this provider cannot delete it from here'],
      `Delete endpoint ${endpoint.id} at ${registrar.name}, then run the same command again`,
    );
  }
  try {
    await registrar.delete(endpoint);
  } catch {
    throw new RegistrationIncomplete(
      failure,
      [`created ${registrar.name} endpoint ${endpoint.id}`],
      ['its secret was not stored', `deleting endpoint ${endpoint.id} failed too`],
      `Delete endpoint ${endpoint.id} at ${registrar.name}, then run the same command again`,
    );
  }
  throw new RegistrationIncomplete(
    failure,
    [`created ${registrar.name} endpoint ${endpoint.id} and deleted it again, as its secret was not stored`],
    [],
    AGAIN,
  );
}

async function updateSecret(input: RegisterFlowInput, matching: RemoteEndpoint[]): Promise<RegisterOutcome> {
  const { registrar, secrets, providerId } = input;
  if (!registrar.updateSecret) {
    throw new RegistrationError('unexpected_answer', `${registrar.name} cannot update an endpoint's secret`);
  }
  const before = (await secrets.list(providerId))[0];
  const secret = input.generateSecret();
  try {
    await secrets.rotate(providerId, secret);
  } catch (error) {
    throw storeFailed(error);
  }
  const updated: RemoteEndpoint[] = [];
  for (const endpoint of matching) {
    try {
      await registrar.updateSecret(endpoint, secret);
      updated.push(endpoint);
    } catch (error) {
      const left = matching.filter((e) => !updated.includes(e)).map((e) => e.id);
      if (updated.length === 0 && before !== undefined) {
        // The provider still signs with the secret before: make it the current one again, so that running
        // the command again rotates from it and never pushes it out while the provider still uses it.
        try {
          await secrets.rotate(providerId, before);
        } catch {
          throw new RegistrationIncomplete(
            error,
            [
              `stored a new ${providerId} secret; the one ${registrar.name} signs with stays valid as the previous one`,
            ],
            [
              `endpoint ${left.join(', ')} still signs with the old secret`,
              'restoring the old secret as current failed',
            ],
            `Run \`${CLI} secrets rotate ${providerId}\` only after ${registrar.name} signs with the new one; ${AGAIN.toLowerCase()}`,
          );
        }
        throw new RegistrationIncomplete(
          error,
          [],
          [`endpoint ${left.join(', ')} still signs with the old secret, which is still the current one`],
          AGAIN,
        );
      }
      throw new RegistrationIncomplete(
        error,
        [
          `stored a new ${providerId} secret (the old one stays valid as the previous one)`,
          ...(updated.length > 0 ? [`endpoint ${updated.map((e) => e.id).join(', ')} signs with it`] : []),
        ],
        [`endpoint ${left.join(', ')} still signs with the old secret, which is still accepted`],
        AGAIN,
      );
    }
  }
  return { kind: 'replaced', endpoint: matching[0] as RemoteEndpoint, deleted: [] };
}

async function rotateSecret(input: RegisterFlowInput, matching: RemoteEndpoint[]): Promise<RegisterOutcome> {
  const { registrar, secrets, providerId } = input;
  if (!registrar.rotateSecret) {
    throw new RegistrationError('unexpected_answer', `${registrar.name} cannot rotate an endpoint's secret`);
  }
  // One endpoint is rotated: the inbox keeps one previous secret, so a second rotation in the same run would
  // push out the key the first endpoint was signing with a moment ago.
  const endpoint = matching[0] as RemoteEndpoint;
  const secret = await registrar.rotateSecret(endpoint);
  try {
    await secrets.rotate(providerId, secret);
  } catch (error) {
    throw new RegistrationIncomplete(
      storeFailed(error),
      [`${registrar.name} rotated the signature key of endpoint ${endpoint.id}`],
      ['the new key was not stored: deliveries signed with it are refused until it is'],
      `${AGAIN} now: it rotates once more and stores the key`,
    );
  }
  return { kind: 'replaced', endpoint, deleted: [] };
}

async function recreate(input: RegisterFlowInput, matching: RemoteEndpoint[]): Promise<RegisterOutcome> {
  const { registrar, url, events } = input;
  if (!registrar.delete) {
    throw new RegistrationError('unexpected_answer', `${registrar.name} cannot delete an endpoint`);
  }
  const created = await registrar.create({ url, events: events ?? matching[0]?.events });
  const { endpoint } = await storeOrUndo(input, created.endpoint, created.secret);
  const deleted: RemoteEndpoint[] = [];
  for (const old of matching) {
    try {
      await registrar.delete(old);
      deleted.push(old);
    } catch (error) {
      const left = matching.filter((e) => !deleted.includes(e)).map((e) => e.id);
      throw new RegistrationIncomplete(
        error,
        [
          `created ${registrar.name} endpoint ${endpoint.id} and stored its secret (the old one stays valid as the previous one)`,
          ...(deleted.length > 0 ? [`deleted ${deleted.map((e) => e.id).join(', ')}`] : []),
        ],
        [
          `old endpoint ${left.join(', ')} was not deleted and still delivers, signed with the previous secret`,
        ],
        `Delete ${left.join(', ')} at ${registrar.name} once the new endpoint delivers`,
      );
    }
  }
  return { kind: 'replaced', endpoint, deleted };
}
