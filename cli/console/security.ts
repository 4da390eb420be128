// Who may talk to the console, decided per request before any route runs. The console serves the
// operator's own AWS credentials' view of the inbox, so it answers only on loopback, only to a caller
// that holds this launch's token, and only to requests a link or another site cannot forge: mutations
// are POSTs that carry the token in a header, which a cross-site form or <img> cannot set.
//
// Cookies are kept apart by host and path, never by port: a cookie for 127.0.0.1 with `Path=/` goes to
// every other server the browser visits on 127.0.0.1. So the whole console lives under a random path
// chosen per launch (`/c/<random>/`), its cookie is scoped to that path, and nothing outside it answers.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_HEADER = 'x-console-token';
/** Cookies are not kept apart by port: each console's carries its port, so two launches never mix. */
export function tokenCookieName(port: number): string {
  return `webhook_inbox_console_${port}`;
}

/** 32 random bytes as URL-safe text: printed once, in the URL the operator opens. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The path the console is served under for one launch, `/c/<random>/`. Another local server sees the
 * cookie only for a request under this path, which it cannot guess (128 bits).
 */
export function newBasePath(): string {
  return `/c/${randomBytes(16).toString('base64url')}/`;
}

/**
 * The console's own path for a request path, `/` for the base itself (with or without its trailing
 * slash); undefined for a path outside the base, which no route serves.
 */
export function consolePath(pathname: string, basePath: string): string | undefined {
  if (pathname === basePath.slice(0, -1)) return '/';
  return pathname.startsWith(basePath) ? `/${pathname.slice(basePath.length)}` : undefined;
}

/** Constant time for equal lengths; a length mismatch says nothing about the token's characters. */
export function sameToken(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A DNS-rebinding guard: a page of evil.example whose name is made to resolve to 127.0.0.1 reaches this
 * port with `Host: evil.example`, and the browser would treat the answers as that site's.
 */
export function allowedHost(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

function cookieToken(request: IncomingMessage, port: number): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === tokenCookieName(port)) return value.join('=');
  }
  return undefined;
}

function headerToken(request: IncomingMessage): string | undefined {
  const value = request.headers[TOKEN_HEADER];
  return typeof value === 'string' ? value : undefined;
}

export type Gate =
  | { kind: 'allow'; setCookie: boolean }
  | { kind: 'refuse'; status: 401 | 403 | 404 | 405 | 415 };

export interface GateInput {
  token: string;
  port: number;
  /** This launch's `/c/<random>/` (newBasePath). */
  basePath: string;
  readOnly: boolean;
  /** A route that changes something (redrive, replay, purge, rotate). */
  mutation: boolean;
  /** A JSON API route rather than a page or an asset. */
  api: boolean;
}

/**
 * The security rules, in order. Outside the base path there is nothing, token or not: 404. Pages take the token from `?token=` once (the answer sets an HttpOnly,
 * SameSite=Strict cookie) or from that cookie; the API takes it from the header only; a mutation must be
 * a POST with a JSON body and the header, and is refused outright in read-only mode.
 */
export function gate(request: IncomingMessage, url: URL, input: GateInput): Gate {
  if (!allowedHost(request.headers.host, input.port)) return { kind: 'refuse', status: 403 };
  if (consolePath(url.pathname, input.basePath) === undefined) return { kind: 'refuse', status: 404 };
  if (input.mutation) {
    if (request.method !== 'POST') return { kind: 'refuse', status: 405 };
    if (!sameToken(input.token, headerToken(request))) return { kind: 'refuse', status: 401 };
    if (input.readOnly) return { kind: 'refuse', status: 403 };
    // A browser sends a cross-origin JSON POST only after a preflight, which this server never answers.
    if (!/^application\/json\b/.test(request.headers['content-type'] ?? ''))
      return { kind: 'refuse', status: 415 };
    return { kind: 'allow', setCookie: false };
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return { kind: 'refuse', status: 405 };
  if (input.api) {
    return sameToken(input.token, headerToken(request))
      ? { kind: 'allow', setCookie: false }
      : { kind: 'refuse', status: 401 };
  }
  if (sameToken(input.token, url.searchParams.get('token') ?? undefined)) {
    return { kind: 'allow', setCookie: true };
  }
  return sameToken(input.token, cookieToken(request, input.port))
    ? { kind: 'allow', setCookie: false }
    : { kind: 'refuse', status: 401 };
}

/** On every answer: nothing from elsewhere runs, frames or is fetched; no CORS header is ever sent. */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Sent only under this launch's base path: other ports' servers on 127.0.0.1 never see it. */
export function tokenCookie(token: string, port: number, basePath: string): string {
  return `${tokenCookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=${basePath}`;
}
