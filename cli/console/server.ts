// The console's HTTP server: Node's own, on 127.0.0.1 only, in the CLI's process. Every request passes
// the gate (security.ts) before a route runs; routes render pages (pages.ts) or answer JSON, and the
// mutations call ConsoleOperations, the same adapters the CLI commands use.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidCursorError } from '../../lambdas/adapters/dynamo-inbox-listing';
import { INBOX_STATUSES, type InboxStatus } from '../../lambdas/core/inbox';
import { describeError, UsageError } from '../shared/output';
import { CLIENT_SCRIPT, STYLES } from './assets';
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
import { gate, SECURITY_HEADERS, tokenCookie } from './security';

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
};

export interface ConsoleOptions {
  port: number;
  readOnly: boolean;
  token: string;
  backend: ConsoleBackend;
}

export interface RunningConsole {
  /** The address the server listens on: always 127.0.0.1. */
  address: string;
  port: number;
  url: string;
  close(): Promise<void>;
}

const PAGE_SIZE = 50;
const MAX_BODY_BYTES = 64 * 1024;

interface Route {
  api: boolean;
  mutation: boolean;
  handle(context: Context): Promise<void>;
}

interface Context {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
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
    handle: async (c) => {
      c.response.writeHead(303, { ...SECURITY_HEADERS, location: '/deliveries' });
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
      const page = await c.backend.deliveries.page(deliveriesQuery(form, Date.now()));
      html(c, deliveriesPage(c.frame, Object.keys(c.backend.config.providers), form, page, PAGE_SIZE));
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
    handle: async (c) => send(c.response, 204, undefined, ''),
  },
  '/assets/console.css': {
    api: false,
    mutation: false,
    handle: async (c) => send(c.response, 200, 'text/css; charset=utf-8', STYLES),
  },
  '/assets/console.js': {
    api: false,
    mutation: false,
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

export function startConsoleServer(options: ConsoleOptions): Promise<RunningConsole> {
  const jobs = new Jobs();
  const frame: Frame = {
    target: options.backend.target.description,
    token: options.token,
    readOnly: options.readOnly,
  };
  let port = options.port;
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
    const found = route(url.pathname);
    const verdict = gate(request, url, {
      token: options.token,
      port,
      readOnly: options.readOnly,
      mutation: found?.mutation ?? false,
      api: found?.api ?? url.pathname.startsWith('/api/'),
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
        'set-cookie': tokenCookie(options.token, port),
        // One leading slash: `/.//evil.example/x` normalises to `//evil.example/x`, which a browser
        // reads as another host.
        location: `/${url.pathname.replace(/^\/+/, '')}${url.search}`,
      });
      response.end();
      return;
    }
    const context = { request, response, url, frame, backend: options.backend, jobs, body: {} } as Context;
    try {
      if (!found) throw new HttpError(404, 'not found');
      if (found.mutation) context.body = await readBody(request);
      await found.handle(context);
    } catch (error) {
      // A tampered or foreign cursor is the request's fault, as `deliveries list --cursor` says (exit 2).
      const badInput = error instanceof UsageError || error instanceof InvalidCursorError;
      const status = error instanceof HttpError ? error.status : badInput ? 400 : 500;
      const message = error instanceof HttpError || badInput ? error.message : describeError(error);
      if (response.headersSent) {
        response.end();
      } else if (found?.api) {
        json(context, { error: message }, status);
      } else {
        html(context, messagePage(frame, status === 404 ? 'Not found' : 'Error', message), status);
      }
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      const bound = server.address() as AddressInfo;
      port = bound.port;
      resolve({
        address: bound.address,
        port,
        url: `http://127.0.0.1:${port}/?token=${options.token}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
