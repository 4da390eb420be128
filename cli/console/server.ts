// The console's HTTP server: Node's own, on 127.0.0.1 only, in the CLI's process, under a random path
// per launch (security.ts says why). Every request passes the gate (security.ts) before a route runs; routes render pages (pages.ts) or answer JSON, and the
// mutations call ConsoleOperations, the same adapters the CLI commands use.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidCursorError } from '../../lambdas/adapters/dynamo-inbox-listing';
import { INBOX_STATUSES, type InboxStatus } from '../../lambdas/core/inbox';
import { describeError, UsageError } from '../shared/output';
import { CLIENT_SCRIPT, STYLES } from './assets';
import { type BackendSource, isConnectionRefused, UnavailableError } from './backend-source';
import type { ConsoleOperations, RedriveScope } from './console-operations';
import type { DeliveryQuery } from './deliveries-source';
import type { Frame } from './html';
import { Jobs } from './jobs';
import {
  type DeliveriesForm,
  deadLettersPage,
  deliveriesPage,
  deliveryPage,
  messagePage,
  providersPage,
  RANGES,
} from './pages';
import { replayDestinations } from './replay-destinations';
import { consolePath, gate, newBasePath, SECURITY_HEADERS, tokenCookie } from './security';
import { trendWindow } from './trends';
import { readTrends } from './trends-read';
import { trendsSection } from './trends-section';

/** What the server needs from the inbox: ConsoleOperations, or a stand-in in the security tests. */
export type ConsoleBackend = Pick<
  ConsoleOperations,
  | 'deliveries'
  | 'config'
  | 'target'
  | 'dlqName'
  | 'dlqCounts'
  | 'deadLetterGroups'
  | 'redrive'
  | 'purge'
  | 'providers'
  | 'rotate'
> & {
  reveal(provider: string, dedupKey: string): Promise<Buffer | undefined>;
  replay(
    provider: string,
    dedupKey: string,
  ): Promise<{ kind: string; reason?: string; messageId?: string; destinations?: string[] }>;
  /** ConsoleOperations.duplicateTrend; a stand-in without it draws the trends as local mode does. */
  duplicateTrend?: ConsoleOperations['duplicateTrend'];
};

export interface ConsoleOptions {
  port: number;
  readOnly: boolean;
  token: string;
  /** The `/c/<random>/` every page, asset and API call is under; a fresh one when not given. */
  basePath?: string;
  /** The inbox: one backend (a stack, a stand-in), or a source that finds it again per request (local). */
  backend: ConsoleBackend | BackendSource;
}

export interface RunningConsole {
  /** The address the server listens on: always 127.0.0.1. */
  address: string;
  port: number;
  /** The `/c/<random>/` the console is served under. */
  basePath: string;
  /** What the operator opens: the base path with `?token=`. */
  url: string;
  close(): Promise<void>;
}

const PAGE_SIZE = 50;
const MAX_BODY_BYTES = 64 * 1024;

interface Route {
  api: boolean;
  mutation: boolean;
  /** False for what is served without the inbox (the assets): they load even when it is not running. */
  inbox?: false;
  handle(context: Context): Promise<void>;
}

interface Context {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  /** The absolute prefix of this launch, for redirects; pages link relative to it. */
  basePath: string;
  frame: Frame;
  backend: ConsoleBackend;
  jobs: Jobs;
  body: Record<string, unknown>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(response: ServerResponse, status: number, type: string | undefined, body: string): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    ...(type ? { 'content-type': type } : {}),
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

const html = (c: Context, body: string, status = 200) =>
  send(c.response, status, 'text/html; charset=utf-8', body);
const json = (c: Context, value: unknown, status = 200) =>
  send(c.response, status, 'application/json; charset=utf-8', JSON.stringify(value));

function text(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw new HttpError(400, `${name} is required`);
  return value;
}

function param(url: URL, name: string): string | undefined {
  const value = url.searchParams.get(name);
  return value === null || value === '' ? undefined : value;
}

/** The Deliveries form as a query of the inbox; a bad value is ignored, not an error page. */
function deliveriesQuery(form: DeliveriesForm, nowMs: number): DeliveryQuery {
  const range = RANGES.find(([id]) => id === form.range);
  const untilMs = form.until ? Date.parse(`${form.until}Z`) : Number.NaN;
  return {
    ...(form.provider ? { provider: form.provider } : {}),
    ...(INBOX_STATUSES.includes(form.status as InboxStatus) ? { status: form.status as InboxStatus } : {}),
    ...(range ? { sinceMs: (Number.isNaN(untilMs) ? nowMs : untilMs) - range[2] } : {}),
    ...(Number.isNaN(untilMs) ? {} : { untilMs }),
    ...(form.q ? { search: form.q } : {}),
    ...(form.cursor ? { cursor: form.cursor } : {}),
    limit: PAGE_SIZE,
  };
}

/**
 * The trends section, on the listing's first page only: a search or a later page is looking for one
 * delivery, and each view of the trends reads up to TREND_READ_CAP records.
 */
async function deliveriesTrends(c: Context, form: DeliveriesForm, nowMs: number): Promise<string> {
  if (form.cursor || form.q) return '';
  const window = trendWindow(param(c.url, 'trend'));
  const [view, duplicates] = await Promise.all([
    readTrends(c.backend.deliveries, window, nowMs, form.provider),
    c.backend.duplicateTrend?.(window, nowMs),
  ]);
  return trendsSection(view, { ...form, trend: window }, duplicates);
}

function redriveScope(body: Record<string, unknown>): RedriveScope {
  switch (body.scope) {
    case 'all':
      return { scope: 'all' };
    case 'group':
      return { scope: 'group', provider: text(body, 'provider'), errorCode: text(body, 'errorCode') };
    case 'selection': {
      const keys = body.keys;
      if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string'))
        throw new HttpError(400, 'keys must list provider#dedupKey strings');
      return { scope: 'selection', keys: keys as string[] };
    }
    default:
      throw new HttpError(400, 'scope must be all, group or selection');
  }
}

const ROUTES: Record<string, Route> = {
  '/': {
    api: false,
    mutation: false,
    inbox: false,
    handle: async (c) => {
      c.response.writeHead(303, { ...SECURITY_HEADERS, location: `${c.basePath}deliveries` });
      c.response.end();
    },
  },
  '/deliveries': {
    api: false,
    mutation: false,
    handle: async (c) => {
      const form: DeliveriesForm = Object.fromEntries(
        ['provider', 'status', 'range', 'until', 'q', 'cursor', 'prev'].flatMap((name) => {
          const value = param(c.url, name);
          return value === undefined ? [] : [[name, value]];
        }),
      );
      const nowMs = Date.now();
      const [page, trends] = await Promise.all([
        c.backend.deliveries.page(deliveriesQuery(form, nowMs)),
        deliveriesTrends(c, form, nowMs),
      ]);
      html(
        c,
        deliveriesPage(c.frame, Object.keys(c.backend.config.providers), form, page, PAGE_SIZE, trends),
      );
    },
  },
  '/delivery': {
    api: false,
    mutation: false,
    handle: async (c) => {
      const provider = param(c.url, 'provider');
      const key = param(c.url, 'key');
      const record = provider && key ? await c.backend.deliveries.get(provider, key) : undefined;
      if (!record) {
        html(c, messagePage(c.frame, 'Not found', 'No such delivery in the inbox index.'), 404);
        return;
      }
      // The target's config: a local instance's --forward-to destinations are in it, not in cdk.json's.
      html(c, deliveryPage(c.frame, record, replayDestinations(c.backend.target.config, record)));
    },
  },
  '/dead-letters': {
    api: false,
    mutation: false,
    handle: async (c) => {
      const [groups, counts] = await Promise.all([c.backend.deadLetterGroups(), c.backend.dlqCounts()]);
      html(c, deadLettersPage(c.frame, groups, { name: c.backend.dlqName, ...counts }));
    },
  },
  '/providers': {
    api: false,
    mutation: false,
    handle: async (c) => html(c, providersPage(c.frame, await c.backend.providers())),
  },
  '/favicon.ico': {
    api: false,
    mutation: false,
    inbox: false,
    handle: async (c) => send(c.response, 204, undefined, ''),
  },
  '/assets/console.css': {
    api: false,
    mutation: false,
    inbox: false,
    handle: async (c) => send(c.response, 200, 'text/css; charset=utf-8', STYLES),
  },
  '/assets/console.js': {
    api: false,
    mutation: false,
    inbox: false,
    handle: async (c) => send(c.response, 200, 'text/javascript; charset=utf-8', CLIENT_SCRIPT),
  },
  '/api/payload': {
    api: true,
    mutation: false,
    handle: async (c) => {
      const provider = param(c.url, 'provider');
      const key = param(c.url, 'key');
      if (!provider || !key) throw new HttpError(400, 'provider and key are required');
      const bytes = await c.backend.reveal(provider, key);
      if (!bytes) throw new HttpError(404, 'no archived payload for this delivery');
      json(c, { bytes: bytes.length, base64: bytes.toString('base64') });
    },
  },
  '/api/replay': {
    api: true,
    mutation: true,
    handle: async (c) => {
      const outcome = await c.backend.replay(text(c.body, 'provider'), text(c.body, 'key'));
      json(c, outcome, outcome.kind === 'replayed' ? 200 : 409);
    },
  },
  '/api/redrive': {
    api: true,
    mutation: true,
    handle: async (c) => {
      const scope = redriveScope(c.body);
      json(
        c,
        c.jobs.start('redrive', (progress) => c.backend.redrive(scope, progress)),
        202,
      );
    },
  },
  '/api/purge': {
    api: true,
    mutation: true,
    handle: async (c) => json(c, { message: await c.backend.purge(text(c.body, 'confirm')) }),
  },
  '/api/rotate': {
    api: true,
    mutation: true,
    handle: async (c) => {
      const value = typeof c.body.value === 'string' && c.body.value !== '' ? c.body.value : undefined;
      json(c, { message: await c.backend.rotate(text(c.body, 'provider'), value) });
    },
  },
};

function route(path: string): Route | undefined {
  if (Object.hasOwn(ROUTES, path)) return ROUTES[path];
  if (path.startsWith('/api/jobs/')) {
    return {
      api: true,
      mutation: false,
      inbox: false,
      handle: async (c) => {
        const job = c.jobs.get(path.slice('/api/jobs/'.length));
        if (!job) throw new HttpError(404, 'no such job');
        json(c, job);
      },
    };
  }
  return undefined;
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    // Answered below.
  }
  throw new HttpError(400, 'the body must be a JSON object');
}

/** The request's target as a URL, or undefined when it is not one (a broken host after `//`, say). */
function requestUrl(request: IncomingMessage, port: number): URL | undefined {
  try {
    return new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
  } catch {
    return undefined;
  }
}

/** The answer to a request whose handling failed past its own error page: a bare 500, or a cut socket. */
function abandon(response: ServerResponse): void {
  try {
    if (response.headersSent) response.destroy();
    else send(response, 500, undefined, '');
  } catch {
    response.destroy();
  }
}

export function startConsoleServer(options: ConsoleOptions): Promise<RunningConsole> {
  const jobs = new Jobs();
  const basePath = options.basePath ?? newBasePath();
  const source: BackendSource | undefined = 'current' in options.backend ? options.backend : undefined;
  const fixed = 'current' in options.backend ? undefined : options.backend;
  /** The page frame, whose header names the request's target, else the one last found. */
  const frame = (backend?: ConsoleBackend): Frame => ({
    target: (backend ?? fixed)?.target.description ?? (source as BackendSource).description,
    token: options.token,
    readOnly: options.readOnly,
  });
  let port = options.port;
  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = requestUrl(request, port);
    if (!url) {
      // Not a target any route or the gate can read (`//[` is a scheme-relative URL with a broken host).
      request.resume();
      send(response, 400, undefined, '');
      return;
    }
    // Outside the base path, `path` matches no route and the gate answers 404.
    const path = consolePath(url.pathname, basePath) ?? '';
    const found = route(path);
    const verdict = gate(request, url, {
      token: options.token,
      port,
      basePath,
      readOnly: options.readOnly,
      mutation: found?.mutation ?? false,
      api: found?.api ?? path.startsWith('/api/'),
    });
    if (verdict.kind === 'refuse') {
      request.resume();
      send(response, verdict.status, undefined, '');
      return;
    }
    if (verdict.setCookie) {
      // The token leaves the address bar (and the history) at once; the cookie carries it from here.
      url.searchParams.delete('token');
      response.writeHead(303, {
        ...SECURITY_HEADERS,
        'set-cookie': tokenCookie(options.token, port, basePath),
        // Always under the base path, never `//...`: `/.//evil.example/x` normalises to
        // `//evil.example/x`, which a browser would read as another host.
        location: `${basePath}${path.replace(/^\/+/, '')}${url.search}`,
      });
      response.end();
      return;
    }
    const context = {
      request,
      response,
      url,
      basePath,
      frame: frame(),
      jobs,
      body: {},
    } as Context;
    try {
      if (!found) throw new HttpError(404, 'not found');
      if (found.mutation) context.body = await readBody(request);
      if (found.inbox !== false) {
        context.backend = fixed ?? (await (source as BackendSource).current());
        context.frame = frame(context.backend);
      }
      try {
        await found.handle(context);
      } catch (error) {
        if (!source || !isConnectionRefused(error) || response.headersSent) throw error;
        // The instance these clients point at is gone: find the running one (or say there is none), and
        // read again from it. A mutation is not repeated: the operator sees the page and decides.
        context.backend = await source.current(true);
        context.frame = frame(context.backend);
        if (found.mutation)
          throw new UnavailableError('the local inbox was restarted during the call: try again');
        await found.handle(context);
      }
    } catch (error) {
      // A tampered or foreign cursor is the request's fault, as `deliveries list --cursor` says (exit 2).
      const badInput = error instanceof UsageError || error instanceof InvalidCursorError;
      const known = error instanceof HttpError || error instanceof UnavailableError || badInput;
      const status =
        error instanceof HttpError
          ? error.status
          : error instanceof UnavailableError
            ? 503
            : badInput
              ? 400
              : 500;
      const message = known ? (error as Error).message : describeError(error);
      if (response.headersSent) {
        response.end();
      } else if (found?.api) {
        json(context, { error: message }, status);
      } else {
        const title = status === 404 ? 'Not found' : status === 503 ? 'Unavailable' : 'Error';
        html(context, messagePage(frame(), title, message), status);
      }
    }
  };
  // Node's listener ignores the promise it gets back, so a rejection would end the CLI's process, and a
  // page on any origin can send a request: whatever escapes `answer` ends this one request only.
  const server: Server = createServer((request, response) => {
    answer(request, response).catch(() => abandon(response));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      const bound = server.address() as AddressInfo;
      port = bound.port;
      resolve({
        address: bound.address,
        port,
        basePath,
        url: `http://127.0.0.1:${port}${basePath}?token=${options.token}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
