import { describe, expect, it } from 'vitest';
import { RegistrationError } from '../../../../../cli/operations/registration/errors';
import {
  RegistrationIncomplete,
  registerEndpoint,
} from '../../../../../cli/operations/registration/register-flow';
import type {
  Created,
  CreateInput,
  Registrar,
  RemoteEndpoint,
  ReplaceStrategy,
  SecretOrigin,
} from '../../../../../cli/operations/registration/registrar';
import type { SecretStore } from '../../../../../cli/shared/target-types';

const URL_ = 'https://inbox.example.com/webhooks/p';

/** A provider in memory: each endpoint signs with its own secret; `fail` makes one call answer 500. */
class MemoryProvider implements Registrar {
  readonly name = 'Memo';
  endpoints: (RemoteEndpoint & { secret: string })[] = [];
  private seq = 0;
  fail = new Set<'list' | 'create' | 'update' | 'rotate' | 'delete'>();
  calls: string[] = [];
  constructor(
    readonly secretOrigin: SecretOrigin,
    readonly replaceStrategy: ReplaceStrategy,
  ) {}
  private check(call: 'list' | 'create' | 'update' | 'rotate' | 'delete') {
    this.calls.push(call);
    if (this.fail.has(call))
      throw new RegistrationError('provider_unavailable', `Memo answered 500 to ${call}`);
  }
  async list() {
    this.check('list');
    return this.endpoints.map(({ secret: _s, ...e }) => e);
  }
  async create(input: CreateInput): Promise<Created> {
    this.check('create');
    const secret = this.secretOrigin === 'ours' ? (input.secret as string) : `theirs-${++this.seq}`;
    const endpoint = { id: `ep_${++this.seq}`, url: input.url, events: input.events ?? ['*'] };
    this.endpoints.push({ ...endpoint, secret });
    return this.secretOrigin === 'ours' ? { endpoint } : { endpoint, secret };
  }
  async updateSecret(endpoint: RemoteEndpoint, secret: string) {
    this.check('update');
    const e = this.endpoints.find((x) => x.id === endpoint.id);
    if (e) e.secret = secret;
  }
  async rotateSecret(endpoint: RemoteEndpoint) {
    this.check('rotate');
    const e = this.endpoints.find((x) => x.id === endpoint.id);
    if (!e) throw new RegistrationError('not_found', 'gone');
    e.secret = `rotated-${++this.seq}`;
    return e.secret;
  }
  async delete(endpoint: RemoteEndpoint) {
    this.check('delete');
    this.endpoints = this.endpoints.filter((x) => x.id !== endpoint.id);
  }
  /** Secrets the provider signs with now, for URL_. */
  signing(): string[] {
    return this.endpoints.filter((e) => e.url === URL_).map((e) => e.secret);
  }
}

/** The secrets file's semantics: the new one first, exactly one previous kept. */
class MemoryStore implements SecretStore {
  values: string[] = [];
  failRotate = false;
  location = () => 'memory';
  list = async () => [...this.values];
  rotate = async (_p: string, value: string) => {
    if (this.failRotate) throw new Error('AccessDeniedException: not allowed');
    const current = this.values[0];
    this.values = current === undefined || current === value ? [value] : [value, current];
    return [...this.values];
  };
}

let n = 0;
function setup(origin: SecretOrigin, strategy: ReplaceStrategy) {
  const provider = new MemoryProvider(origin, strategy);
  const store = new MemoryStore();
  const run = (replace = false) =>
    registerEndpoint({
      registrar: provider,
      secrets: store,
      providerId: 'p',
      url: URL_,
      replace,
      generateSecret: () => `ours-${++n}`,
    });
  return { provider, store, run };
}

/** Every endpoint for the URL signs with a secret the inbox accepts. */
function everyDeliveryVerifies(provider: MemoryProvider, store: MemoryStore): boolean {
  return provider.signing().length > 0 && provider.signing().every((s) => store.values.includes(s));
}

async function failure(promise: Promise<unknown>): Promise<RegistrationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof RegistrationError))
    throw new Error(`expected a RegistrationError, got ${String(error)}`);
  return error;
}

describe('registerEndpoint: create', () => {
  it('stores our secret before the provider is asked to create the endpoint (origin ours)', async () => {
    const { provider, store, run } = setup('ours', 'update-secret');
    let storedAtCreate: string[] = [];
    const create = provider.create.bind(provider);
    provider.create = async (input) => {
      storedAtCreate = [...store.values];
      return create(input);
    };
    const outcome = await run();
    expect(outcome.kind).toBe('created');
    expect(storedAtCreate).toEqual([provider.signing()[0]]);
    expect(everyDeliveryVerifies(provider, store)).toBe(true);
  });

  it('stores the secret the provider returns at once (origin theirs)', async () => {
    const { provider, store, run } = setup('theirs', 'recreate');
    store.values = ['older'];
    await run();
    expect(store.values).toEqual([provider.signing()[0], 'older']);
  });

  it('changes nothing when an endpoint for the URL exists and --replace is not given', async () => {
    const { provider, store, run } = setup('theirs', 'recreate');
    await run();
    const before = { endpoints: structuredClone(provider.endpoints), secrets: [...store.values] };
    const outcome = await run();
    expect(outcome.kind).toBe('exists');
    expect(provider.endpoints).toEqual(before.endpoints);
    expect(store.values).toEqual(before.secrets);
    expect(provider.calls.filter((c) => c !== 'list')).toEqual(['create']);
  });

  it('deletes the endpoint it created when the returned secret cannot be stored, and says so', async () => {
    const { provider, store, run } = setup('theirs', 'recreate');
    store.failRotate = true;
    const error = await failure(run());
    expect(error).toBeInstanceOf(RegistrationIncomplete);
    expect(error.message).toMatch(/created Memo endpoint ep_\d+ and deleted it again/);
    expect(error.message).not.toMatch(/\n/);
    expect(provider.endpoints).toEqual([]);
  });

  it('names the endpoint to delete by hand when the undo fails too', async () => {
    const { provider, store, run } = setup('theirs', 'recreate');
    store.failRotate = true;
    provider.fail.add('delete');
    const error = await failure(run());
    expect(error.message).toMatch(/Delete endpoint ep_\d+ at Memo/);
  });

  it('keeps the old secret valid when the provider fails to create after ours was stored', async () => {
    const { provider, store, run } = setup('ours', 'update-secret');
    store.values = ['old'];
    provider.fail.add('create');
    const error = await failure(run());
    expect(error.reason).toBe('provider_unavailable');
    expect(error.message).toMatch(/no Memo endpoint was created/);
    expect(store.values).toContain('old');
  });

  it('origin ours, provider 500 on the create: the secret before stays current, so reruns never push it out', async () => {
    const { provider, store, run } = setup('ours', 'update-secret');
    store.values = ['other-hook-secret'];
    provider.fail.add('create');
    await failure(run());
    await failure(run());
    expect(store.values[0]).toBe('other-hook-secret');
    provider.fail.clear();
    await run();
    expect(store.values).toEqual(['other-hook-secret']);
    expect(provider.signing()).toEqual(['other-hook-secret']);
  });

  it('origin ours, a hook per repository for one URL: registering a third leaves the first one verifying', async () => {
    // GitHub lists hooks per repository, so each repository's register creates one; all share the secret set.
    const store = new MemoryStore();
    store.values = ['deployed'];
    const repos = [0, 1, 2].map(() => new MemoryProvider('ours', 'update-secret'));
    for (const registrar of repos) {
      const outcome = await registerEndpoint({
        registrar,
        secrets: store,
        providerId: 'p',
        url: URL_,
        replace: false,
        generateSecret: () => `ours-${++n}`,
      });
      expect(outcome.kind).toBe('created');
    }
    for (const registrar of repos) expect(everyDeliveryVerifies(registrar, store)).toBe(true);
  });

  it('changes nothing at the provider when our secret cannot be stored', async () => {
    const { provider, store, run } = setup('ours', 'update-secret');
    store.failRotate = true;
    await failure(run());
    expect(provider.calls).toEqual(['list']);
  });
});

describe('registerEndpoint: --replace', () => {
  it('update-secret: stores the new secret, then the endpoint signs with it; the old one stays previous', async () => {
    const { provider, store, run } = setup('ours', 'update-secret');
    await run();
    const old = store.values[0];
    const outcome = await run(true);
    expect(outcome.kind).toBe('replaced');
    expect(store.values[1]).toBe(old);
    expect(provider.signing()).toEqual([store.values[0]]);
  });

  it('update-secret, provider 500 on the update: the old secret is current again and a rerun loses nothing', async () => {
    const { provider, store, run } = setup('ours', 'update-secret');
    await run();
    provider.fail.add('update');
    const error = await failure(run(true));
    expect(error.message).toMatch(/still signs with the old secret.*Run the same command again/);
    expect(everyDeliveryVerifies(provider, store)).toBe(true);
    // The rerun (still failing) must not push out the secret the provider signs with.
    await failure(run(true));
    expect(everyDeliveryVerifies(provider, store)).toBe(true);
    provider.fail.clear();
    await run(true);
    expect(everyDeliveryVerifies(provider, store)).toBe(true);
    expect(provider.signing()).toEqual([store.values[0]]);
  });

  it('rotate-secret: the provider rotates and the new key is stored at once, the old one previous', async () => {
    const { provider, store, run } = setup('theirs', 'rotate-secret');
    await run();
    const old = store.values[0];
    await run(true);
    expect(store.values).toEqual([provider.signing()[0], old]);
  });

  it('rotate-secret, provider 500 on the rotation: nothing changed, the old key still verifies', async () => {
    const { provider, store, run } = setup('theirs', 'rotate-secret');
    await run();
    const before = [...store.values];
    provider.fail.add('rotate');
    const error = await failure(run(true));
    expect(error.reason).toBe('provider_unavailable');
    expect(store.values).toEqual(before);
    expect(everyDeliveryVerifies(provider, store)).toBe(true);
  });

  it('rotate-secret, the store fails after the rotation: says the key was rotated but not stored', async () => {
    const { provider, store, run } = setup('theirs', 'rotate-secret');
    await run();
    store.failRotate = true;
    const error = await failure(run(true));
    expect(error.message).toMatch(/rotated the signature key.*not stored.*again/);
    store.failRotate = false;
    await run(true);
    expect(everyDeliveryVerifies(provider, store)).toBe(true);
  });

  it('recreate: a new endpoint, its secret stored, then the old endpoint deleted', async () => {
    const { provider, store, run } = setup('theirs', 'recreate');
    await run();
    const [old] = provider.endpoints;
    const outcome = await run(true);
    expect(outcome.kind === 'replaced' && outcome.deleted.map((e) => e.id)).toEqual([old?.id]);
    expect(provider.endpoints).toHaveLength(1);
    expect(store.values).toEqual([provider.signing()[0], old?.secret]);
  });

  it('recreate, provider 500 on the create: the old endpoint and its secret are untouched', async () => {
    const { provider, store, run } = setup('theirs', 'recreate');
    await run();
    const before = { endpoints: structuredClone(provider.endpoints), secrets: [...store.values] };
    provider.fail.add('create');
    await failure(run(true));
    expect(provider.endpoints).toEqual(before.endpoints);
    expect(store.values).toEqual(before.secrets);
  });

  it('recreate, provider 500 on the delete of the old endpoint: both endpoints verify, and the message says what is left', async () => {
    const { provider, store, run } = setup('theirs', 'recreate');
    await run();
    const [old] = provider.endpoints;
    provider.fail.add('delete');
    const error = await failure(run(true));
    expect(error.message).toMatch(/created Memo endpoint ep_\d+ and stored its secret/);
    expect(error.message).toContain(`old endpoint ${old?.id} was not deleted`);
    expect(provider.endpoints).toHaveLength(2);
    expect(everyDeliveryVerifies(provider, store)).toBe(true);
  });
});
