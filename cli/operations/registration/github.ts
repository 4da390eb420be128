// GitHub's webhooks API through @octokit/rest: a repository's hooks (`--repo owner/name`) or an
// organisation's (`--org NAME`). We choose the secret (origin `ours`) and send it in `config.secret`;
// `--replace` stores a new one, then PATCHes the hook's config to sign with it. `--api-base` points the
// client at GitHub Enterprise Server (`https://ghe.example.com/api/v3`) or a test server.
import { RegistrationError } from './errors';
import type { Created, CreateInput, Registrar, RegistrarInput, RemoteEndpoint } from './registrar';

interface HookView {
  id: number;
  events?: string[];
  created_at?: string;
  config?: { url?: string };
}

/** The part of an Octokit RequestError this module reads: never its message, which quotes the response. */
interface HttpFailure {
  status?: number;
  response?: { headers?: Record<string, string | number | undefined> };
}

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

export function githubRegistrar(input: RegistrarInput): Registrar {
  if ((input.repo === undefined) === (input.org === undefined)) {
    throw new RegistrationError(
      'rejected_request',
      'GitHub needs exactly one of --repo owner/name or --org NAME',
    );
  }
  if (input.repo !== undefined && !REPO.test(input.repo)) {
    throw new RegistrationError('rejected_request', `--repo must be owner/name, not "${input.repo}"`);
  }
  const [owner = '', repo = ''] = input.repo?.split('/') ?? [];
  const org = input.org ?? '';
  const where = input.repo !== undefined ? `repository ${input.repo}` : `organization ${org}`;
  const scope = input.repo !== undefined ? 'admin:repo_hook' : 'admin:org_hook';
  const permission =
    input.repo !== undefined
      ? 'the "Webhooks" repository permission (write)'
      : 'the "Webhooks" organization permission (write)';

  let client: Promise<import('@octokit/rest').Octokit> | undefined;
  const octokit = () => {
    client ??= import('@octokit/rest').then(
      ({ Octokit }) =>
        new Octokit({
          auth: input.credential,
          userAgent: 'webhook-inbox',
          ...(input.apiBase ? { baseUrl: input.apiBase.replace(/\/+$/, '') } : {}),
          // Octokit's own logger would print request failures (with their URLs) to the terminal.
          log: {
            debug: () => undefined,
            info: () => undefined,
            warn: () => undefined,
            error: () => undefined,
          },
        }),
    );
    return client;
  };

  /** One HTTP answer as a reason code; the body is never quoted (it may echo the request). */
  const failure = (call: string, error: unknown): RegistrationError => {
    if (error instanceof RegistrationError) return error;
    const { status, response } = (error ?? {}) as HttpFailure;
    const header = response?.headers?.['x-oauth-scopes'];
    // Classic tokens list their scopes; fine-grained ones send no such header.
    const scopes =
      header === undefined
        ? undefined
        : String(header)
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
    const hasScope = (wanted: string[]) => scopes?.some((s) => wanted.includes(s));
    const enough =
      input.repo !== undefined ? ['admin:repo_hook', 'write:repo_hook', 'repo'] : ['admin:org_hook'];
    // No `cause`: Octokit's error holds the request, body and secret included.
    const options = {};
    if (status === 401) {
      return new RegistrationError(
        'refused_credential',
        `GitHub refused the token (401 Bad credentials) on ${call}`,
        options,
      );
    }
    if ((status === 403 || status === 404) && scopes !== undefined && !hasScope(enough)) {
      return new RegistrationError(
        'missing_scope',
        `the GitHub token lacks the ${scope} scope needed to ${call} on ${where} (it has: ${scopes.join(', ') || 'none'})`,
        options,
      );
    }
    if (status === 403) {
      return new RegistrationError(
        'missing_scope',
        `GitHub refused to ${call} on ${where} (403): the token needs ${scope} or ${permission}`,
        options,
      );
    }
    if (status === 404) {
      return new RegistrationError(
        'not_found',
        `GitHub answered 404 to ${call} on ${where}: it does not exist, or the token cannot see it (${permission} for a fine-grained token)`,
        options,
      );
    }
    if (status === 422 || status === 400) {
      return new RegistrationError(
        'rejected_request',
        `GitHub refused to ${call} (${status}): check --events and --url`,
        options,
      );
    }
    if (status !== undefined && status >= 500) {
      return new RegistrationError(
        'provider_unavailable',
        `GitHub answered ${status} to ${call}: nothing was decided there, try again`,
        options,
      );
    }
    if (status === undefined) {
      return new RegistrationError('provider_unavailable', `GitHub could not be reached to ${call}`, options);
    }
    return new RegistrationError('unexpected_answer', `GitHub answered ${status} to ${call}`, options);
  };

  const call = async <T>(
    what: string,
    run: (o: import('@octokit/rest').Octokit) => Promise<T>,
  ): Promise<T> => {
    const o = await octokit();
    try {
      return await run(o);
    } catch (error) {
      throw failure(what, error);
    }
  };

  const endpoint = (hook: HookView): RemoteEndpoint => ({
    id: String(hook.id),
    url: hook.config?.url ?? '',
    events: hook.events ?? [],
    ...(hook.created_at ? { createdAt: hook.created_at } : {}),
  });

  return {
    name: 'GitHub',
    secretOrigin: 'ours',
    replaceStrategy: 'update-secret',

    list: () =>
      call('list webhooks', async (o) => {
        const hooks: HookView[] =
          input.repo !== undefined
            ? await o.paginate(o.rest.repos.listWebhooks, { owner, repo, per_page: 100 })
            : await o.paginate(o.rest.orgs.listWebhooks, { org, per_page: 100 });
        return hooks.map(endpoint);
      }),

    create: ({ url, events, secret }: CreateInput): Promise<Created> =>
      call('create a webhook', async (o) => {
        if (secret === undefined)
          throw new RegistrationError('unexpected_answer', 'no secret to create a GitHub webhook with');
        // content_type json: the inbox verifies and parses JSON bodies; insecure_ssl '0' keeps TLS checked.
        const config = { url, content_type: 'json', insecure_ssl: '0', secret };
        const body = { name: 'web', active: true, events: [...(events ?? ['*'])], config };
        const { data } =
          input.repo !== undefined
            ? await o.rest.repos.createWebhook({ owner, repo, ...body })
            : await o.rest.orgs.createWebhook({ org, ...body });
        return { endpoint: endpoint(data as HookView) };
      }),

    updateSecret: (hook: RemoteEndpoint, secret: string) =>
      call('update the webhook secret', async (o) => {
        const hook_id = Number(hook.id);
        // PATCH .../hooks/{id}/config: the config alone, so the hook's events and active state stay as they
        // are. No `url`: it is unchanged, and Octokit would take it for the request's own URL.
        if (input.repo !== undefined) {
          await o.rest.repos.updateWebhookConfigForRepo({
            owner,
            repo,
            hook_id,
            secret,
            content_type: 'json',
            insecure_ssl: '0',
          });
        } else {
          await o.rest.orgs.updateWebhookConfigForOrg({
            org,
            hook_id,
            secret,
            content_type: 'json',
            insecure_ssl: '0',
          });
        }
      }),

    delete: (hook: RemoteEndpoint) =>
      call('delete the webhook', async (o) => {
        const hook_id = Number(hook.id);
        if (input.repo !== undefined) await o.rest.repos.deleteWebhook({ owner, repo, hook_id });
        else await o.rest.orgs.deleteWebhook({ org, hook_id });
      }),
  };
}
