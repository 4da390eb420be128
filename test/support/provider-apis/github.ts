// A local GitHub REST API for the webhook calls `endpoints register github` makes, as GitHub documents them
// (docs.github.com/rest/webhooks/repos and /orgs): list (per_page default 30, max 100, a Link header with
// rel="next"), create (201; 422 "Validation Failed" for an unknown event or a hook that already exists for
// the URL), PATCH .../hooks/{id}/config (200), delete (204). Credentials: `Authorization: token|Bearer X`;
// an unknown token gets 401 "Bad credentials". A classic token's scopes come back in X-OAuth-Scopes, and
// one without a hook scope gets GitHub's 404, as GitHub answers for what a token may not see.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GithubHook {
  id: number;
  /** `repos/owner/name` or `orgs/name`. */
  owner: string;
  events: string[];
  active: boolean;
  url: string;
  contentType: string;
  insecureSsl: string;
  /** The secret GitHub signs with: what a test signs its delivery with. */
  secret: string | undefined;
  createdAt: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** The JSON body, with any `config.secret` replaced by `[secret]`. */
  body: unknown;
}

/** `classic`: scopes sent back in X-OAuth-Scopes; `fine-grained`: no such header (GitHub sends none). */
export type Token = { kind: 'classic'; scopes: string[] } | { kind: 'fine-grained'; webhooks: boolean };

export interface FakeGithub {
  /** The API base, as `--api-base` takes it (a GHES-style `/api/v3` suffix). */
  apiBase: string;
  hooks: GithubHook[];
  requests: RecordedRequest[];
  /** Accept this token from now on. */
  addToken(token: string, grant: Token): void;
  /** The next request with this method gets this status and GitHub's error body. */
  failNext(method: string, status: number): void;
  addHook(owner: string, url: string, secret: string): GithubHook;
  close(): Promise<void>;
}

const KNOWN_EVENTS = new Set([
  '*',
  'push',
  'pull_request',
  'issues',
  'issue_comment',
  'release',
  'workflow_run',
  'check_run',
  'ping',
  'create',
  'delete',
]);
const DOCS = 'https://docs.github.com/rest';

export async function startFakeGithub(): Promise<FakeGithub> {
  const tokens = new Map<string, Token>();
  const hooks: GithubHook[] = [];
  const requests: RecordedRequest[] = [];
  const failures: { method: string; status: number }[] = [];
  let nextId = 1000;

  const addHook = (owner: string, url: string, secret: string | undefined, events = ['push']): GithubHook => {
    const hook: GithubHook = {
      id: nextId++,
      owner,
      events,
      active: true,
      url,
      contentType: 'json',
      insecureSsl: '0',
      secret,
      createdAt: new Date().toISOString(),
    };
    hooks.push(hook);
    return hook;
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        handle(request, response, Buffer.concat(chunks).toString('utf8'));
      } catch {
        send(response, 500, { message: 'Server Error' });
      }
    });
  });

  function send(
    response: ServerResponse,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    response.writeHead(status, {
      ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
      ...headers,
    });
    response.end(body === undefined ? undefined : JSON.stringify(body));
  }

  function error(
    response: ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ) {
    send(response, status, { message, documentation_url: DOCS, status: String(status) }, headers);
  }

  function view(hook: GithubHook, base: string) {
    const path = `${base}/${hook.owner}/hooks/${hook.id}`;
    return {
      type: hook.owner.startsWith('orgs/') ? 'Organization' : 'Repository',
      id: hook.id,
      name: 'web',
      active: hook.active,
      events: hook.events,
      config: {
        content_type: hook.contentType,
        insecure_ssl: hook.insecureSsl,
        url: hook.url,
        ...(hook.secret === undefined ? {} : { secret: '********' }),
      },
      updated_at: hook.createdAt,
      created_at: hook.createdAt,
      url: path,
      ping_url: `${path}/pings`,
      deliveries_url: `${path}/deliveries`,
    };
  }

  function handle(request: IncomingMessage, response: ServerResponse, raw: string) {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const body = raw === '' ? undefined : (JSON.parse(raw) as Record<string, unknown>);
    requests.push({ method, path: url.pathname + url.search, body: redact(body) });
    const base = `http://${request.headers.host}/api/v3`;
    const failure = failures.findIndex((f) => f.method === method);
    if (failure >= 0) {
      const status = failures.splice(failure, 1)[0]?.status ?? 500;
      return error(response, status, status >= 500 ? 'Server Error' : 'Forced failure');
    }
    const auth = /^(?:token|bearer) (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const grant = auth === undefined ? undefined : tokens.get(auth);
    if (!grant)
      return error(response, 401, auth === undefined ? 'Requires authentication' : 'Bad credentials');
    const scopeHeaders: Record<string, string> =
      grant.kind === 'classic' ? { 'x-oauth-scopes': grant.scopes.join(', ') } : {};

    const match = /^\/api\/v3\/(repos\/[^/]+\/[^/]+|orgs\/[^/]+)\/hooks(?:\/(\d+)(\/config)?)?$/.exec(
      url.pathname,
    );
    if (!match) return error(response, 404, 'Not Found', scopeHeaders);
    const [, owner = '', idText, config] = match;
    const isOrg = owner.startsWith('orgs/');
    const allowed =
      grant.kind === 'classic'
        ? grant.scopes.some((s) =>
            (isOrg ? ['admin:org_hook'] : ['admin:repo_hook', 'write:repo_hook', 'repo']).includes(s),
          )
        : grant.webhooks;
    if (!allowed) {
      // Classic tokens: GitHub hides what the token may not manage (404); fine-grained: 403.
      return grant.kind === 'classic'
        ? error(response, 404, 'Not Found', {
            ...scopeHeaders,
            'x-accepted-oauth-scopes': isOrg ? 'admin:org_hook' : 'admin:repo_hook, repo',
          })
        : error(response, 403, 'Resource not accessible by personal access token', scopeHeaders);
    }
    const own = hooks.filter((h) => h.owner === owner);

    if (idText === undefined && method === 'GET') {
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30) || 30);
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
      const last = Math.max(1, Math.ceil(own.length / perPage));
      const links: string[] = [];
      const link = (p: number, rel: string) =>
        `<${base}/${owner}/hooks?per_page=${perPage}&page=${p}>; rel="${rel}"`;
      if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
      if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
      return send(
        response,
        200,
        own.slice((page - 1) * perPage, page * perPage).map((h) => view(h, base)),
        { ...scopeHeaders, ...(links.length ? { link: links.join(', ') } : {}) },
      );
    }
    if (idText === undefined && method === 'POST') {
      const cfg = (body?.config ?? {}) as Record<string, unknown>;
      const events = (body?.events as string[] | undefined) ?? ['push'];
      if (typeof cfg.url !== 'string' || cfg.url === '') {
        return send(response, 422, validation('url cannot be blank'), scopeHeaders);
      }
      const unknown = events.find((e) => !KNOWN_EVENTS.has(e));
      if (unknown !== undefined) {
        return send(response, 422, validation(`Invalid event: "${unknown}"`), scopeHeaders);
      }
      if (own.some((h) => h.url === cfg.url)) {
        return send(
          response,
          422,
          validation(`Hook already exists on this ${isOrg ? 'organization' : 'repository'}`),
          scopeHeaders,
        );
      }
      const hook = addHook(owner, cfg.url, typeof cfg.secret === 'string' ? cfg.secret : undefined, events);
      hook.active = body?.active !== false;
      hook.contentType = typeof cfg.content_type === 'string' ? cfg.content_type : 'form';
      hook.insecureSsl = String(cfg.insecure_ssl ?? '0');
      return send(response, 201, view(hook, base), scopeHeaders);
    }
    const hook = own.find((h) => h.id === Number(idText));
    if (!hook) return error(response, 404, 'Not Found', scopeHeaders);
    if (config && method === 'PATCH') {
      if (typeof body?.secret === 'string') hook.secret = body.secret;
      if (typeof body?.url === 'string') hook.url = body.url;
      if (typeof body?.content_type === 'string') hook.contentType = body.content_type;
      if (body?.insecure_ssl !== undefined) hook.insecureSsl = String(body.insecure_ssl);
      return send(response, 200, view(hook, base).config, scopeHeaders);
    }
    if (!config && method === 'DELETE') {
      hooks.splice(hooks.indexOf(hook), 1);
      return send(response, 204, undefined, scopeHeaders);
    }
    if (!config && method === 'GET') return send(response, 200, view(hook, base), scopeHeaders);
    return error(response, 404, 'Not Found', scopeHeaders);
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    apiBase: `http://127.0.0.1:${port}/api/v3`,
    hooks,
    requests,
    addToken: (token, grant) => tokens.set(token, grant),
    failNext: (method, status) => failures.push({ method: method.toUpperCase(), status }),
    addHook: (owner, url, secret) => addHook(owner, url, secret),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function validation(message: string) {
  return {
    message: 'Validation Failed',
    errors: [{ resource: 'Hook', code: 'custom', message }],
    documentation_url: 'https://docs.github.com/rest/repos/webhooks#create-a-repository-webhook',
    status: '422',
  };
}

function redact(body: Record<string, unknown> | undefined): unknown {
  if (body === undefined) return undefined;
  const copy = structuredClone(body);
  const config = copy.config as Record<string, unknown> | undefined;
  if (config && 'secret' in config) config.secret = '[secret]';
  if ('secret' in copy) copy.secret = '[secret]';
  return copy;
}
