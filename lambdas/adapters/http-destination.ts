// Forwards a delivery to an HTTP destination: the exact bytes, signed the Standard Webhooks way, over
// node:http(s) directly, so no redirect is ever followed and the SSRF guard (address-policy.ts) sits where
// the connection is made: on every address DNS answers at connect time, and on the socket's peer once
// connected.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { forbiddenAddress } from '../core/destinations/address-policy';
import type { AttemptResult } from '../core/destinations/attempt';
import type { DestinationSender, OutboundDelivery } from '../core/destinations/ports';
import { forwardHeaders, UnusableSecretError } from '../core/destinations/signing';
import type { SecretSource } from '../core/ports';

/** `dns.lookup` as the guard calls it: every address, so none the connection might pick goes unchecked. */
export type AddressLookup = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface HttpDestinationSenderOptions {
  /** Keyed by destination id; newest first. Every secret signs, so a rotation signs with both. */
  secrets: SecretSource;
  /** Local mode: loopback is allowed even when the destination is not `internal`. Nothing else is. */
  allowLoopback?: boolean;
  /** Tests answer names with the addresses they need; the default is the system resolver. */
  lookup?: AddressLookup;
}

type HttpDestination = Extract<OutboundDelivery['destination'], { type: 'http' }>;

/** The answer's body is read (so the connection can be reused) and dropped; past this, the socket is. */
const MAX_DRAINED_BYTES = 64 * 1024;

class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
}

class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
  constructor(readonly code: 'connect_timeout' | 'response_timeout') {
    super(code);
  }
}

const failed = (code: string, retryable = true): AttemptResult => ({ kind: 'failed', code, retryable });

/** What a receiver answers a signature it cannot verify with. */
const REFUSED_SIGNATURE: ReadonlySet<number> = new Set([401, 403]);

const ERRNO_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  ENOTFOUND: 'dns_failed',
  EAI_AGAIN: 'dns_failed',
  // What Node reports when OpenSSL's record layer fails (a peer that does not speak TLS, say).
  EPROTO: 'tls_error',
};

// OpenSSL's certificate verdicts (CERT_HAS_EXPIRED, UNABLE_TO_VERIFY_LEAF_SIGNATURE, ...) and Node's TLS ones.
const TLS_CODE =
  /^(?:ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|CRL_|ERROR_IN_|INVALID_CA|HOSTNAME_MISMATCH)/;

/** A short code for the record and the log; the error's message (which may quote an address) goes nowhere. */
function failureOf(error: unknown): AttemptResult {
  if (error instanceof BlockedAddressError) return failed('blocked_address', false);
  if (error instanceof AttemptTimeoutError) return failed(error.code);
  // Trying several addresses (Node's autoSelectFamily) fails with an AggregateError carrying the first code.
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return failed(ERRNO_CODES[code] ?? (TLS_CODE.test(code) ? 'tls_error' : 'network_error'));
}

interface Route {
  agent: http.Agent;
  /** Sockets whose connection (TCP, and TLS for https) is up: a reused one needs no connect wait. */
  ready: WeakSet<Socket>;
}

export class HttpDestinationSender implements DestinationSender {
  private readonly routes = new Map<string, Route>();
  private readonly lookup: AddressLookup;

  constructor(private readonly options: HttpDestinationSenderOptions) {
    this.lookup = options.lookup ?? dnsLookup;
  }

  /**
   * Every failure of the destination is a result. The secret store's own outage (DependencyError from
   * `secrets`) is not the destination's, so it is thrown: the forwarder does not count it against it.
   */
  async send(delivery: OutboundDelivery): Promise<AttemptResult> {
    const { destination } = delivery;
    if (destination.type !== 'http') throw new Error(`not an http destination: ${destination.type}`);
    const secrets = await this.options.secrets.get(destination.id);
    const result = await this.sendSigned(delivery, destination, secrets);
    if (result.kind !== 'answered' || !REFUSED_SIGNATURE.has(result.status)) return result;
    // Refused as unsigned or wrongly signed: the receiver may have been given a secret rotated since this
    // container read its own (they are cached). Read them again, and if they changed, sign with them now.
    // The source rate-limits the refresh, so a receiver that refuses everything costs no more reads.
    const fresh = await this.options.secrets.get(destination.id, { refresh: true });
    if (fresh.length === secrets.length && fresh.every((secret, i) => secret === secrets[i])) return result;
    return this.sendSigned(delivery, destination, fresh);
  }

  private async sendSigned(
    delivery: OutboundDelivery,
    destination: HttpDestination,
    secrets: readonly string[],
  ): Promise<AttemptResult> {
    if (secrets.length === 0) return failed('destination_secret_missing');
    let headers: Record<string, string>;
    try {
      headers = forwardHeaders({
        id: delivery.webhookId,
        timestampSeconds: Math.floor(delivery.nowMs / 1000),
        body: delivery.body,
        secrets,
        contentType: delivery.envelope.datacontenttype,
        provider: delivery.envelope.provider,
        eventType: delivery.envelope.type,
        attempt: delivery.attempt,
        ...(delivery.envelope.deliveryid === undefined ? {} : { deliveryId: delivery.envelope.deliveryid }),
      });
    } catch (error) {
      if (error instanceof UnusableSecretError) return failed(error.code);
      throw error;
    }
    const url = new URL(destination.url);
    // Node connects to an IP-literal host without calling `lookup`, so the literal is checked here.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && this.refused(destination, host)) return failed('blocked_address', false);
    return this.post(destination, url, host, headers, delivery.body);
  }

  private post(
    destination: HttpDestination,
    url: URL,
    host: string,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<AttemptResult> {
    const secure = url.protocol === 'https:';
    const route = this.route(destination, secure);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const settle = (result: AttemptResult) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        resolve(result);
      };
      let request: http.ClientRequest;
      try {
        request = (secure ? https : http).request({
          method: 'POST',
          protocol: url.protocol,
          host,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          ...(url.username === ''
            ? {}
            : { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }),
          headers: { ...headers, 'content-length': String(body.length) },
          agent: route.agent,
          lookup: this.guardedLookup(destination),
        });
      } catch {
        // A header Node will not send (a content type outside Latin-1): every retry would fail alike.
        settle(failed('invalid_request', false));
        return;
      }
      const limit = (code: AttemptTimeoutError['code'], seconds: number) => {
        clearTimeout(timer);
        if (settled) return;
        timer = setTimeout(() => request.destroy(new AttemptTimeoutError(code)), seconds * 1000);
      };
      limit('connect_timeout', destination.connectTimeoutSeconds);
      request.on('socket', (socket: Socket) => {
        const connected = () => limit('response_timeout', destination.responseTimeoutSeconds);
        if (route.ready.has(socket)) connected();
        else socket.once(secure ? 'secureConnect' : 'connect', connected);
      });
      request.on('error', (error) => settle(failureOf(error)));
      request.on('response', (response) => {
        const retryAfter = response.headers['retry-after'];
        settle({
          kind: 'answered',
          status: response.statusCode ?? 0,
          ...(retryAfter === undefined ? {} : { retryAfter }),
        });
        drain(response, destination.responseTimeoutSeconds);
      });
      request.end(body);
    });
  }

  /** Loopback, private, link-local, metadata, ...: refused unless the destination is `internal`. */
  private refused(destination: HttpDestination, address: string | undefined): boolean {
    if (destination.internal) return false;
    const reason = address === undefined ? 'unspecified' : forbiddenAddress(address);
    return reason !== undefined && !(reason === 'loopback' && this.options.allowLoopback === true);
  }

  /**
   * The resolver the connection uses (an `internal` destination's too, so tests' names resolve alike): a
   * name with any forbidden address is refused, not half-trusted.
   */
  private guardedLookup(destination: HttpDestination): LookupFunction {
    return (hostname, options, callback) => {
      this.lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '');
        if (addresses.length === 0) {
          return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '');
        }
        if (addresses.some(({ address }) => this.refused(destination, address))) {
          return callback(new BlockedAddressError('forbidden address'), '');
        }
        const [first] = addresses as [LookupAddress];
        return options.all ? callback(null, addresses) : callback(null, first.address, first.family);
      });
    };
  }

  /**
   * One keep-alive pool per destination and guard: a socket one destination opened to an address only
   * it may reach is never handed to a request of another.
   */
  private route(destination: HttpDestination, secure: boolean): Route {
    const key = `${destination.id}|${destination.internal}|${secure}`;
    let route = this.routes.get(key);
    if (!route) {
      const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
      const ready = new WeakSet<Socket>();
      const connect = agent.createConnection.bind(agent);
      agent.createConnection = (options, callback) => {
        const socket = connect(options, callback) as Socket;
        // Prepended, so it runs before the request's buffered bytes are written to the new connection:
        // the second check, on the address actually connected to, whatever resolved it.
        socket.prependOnceListener('connect', () => {
          if (this.refused(destination, socket.remoteAddress)) {
            socket.destroy(new BlockedAddressError('forbidden peer'));
          }
        });
        socket.once(secure ? 'secureConnect' : 'connect', () => ready.add(socket));
        return socket;
      };
      route = { agent, ready };
      this.routes.set(key, route);
    }
    return route;
  }
}

/** Reads the answer's body to its end (or the limit, or the time) and drops it: never logged, never kept. */
function drain(response: http.IncomingMessage, seconds: number): void {
  let received = 0;
  const timer = setTimeout(() => response.destroy(), seconds * 1000);
  timer.unref();
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_DRAINED_BYTES) response.destroy();
  });
  response.on('error', () => {});
  response.on('close', () => clearTimeout(timer));
}
