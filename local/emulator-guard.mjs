// The gate in front of each emulator's HTTP server (see emulators.ts for why it exists). It takes over the
// server's request listener, so the emulator answers nothing that did not pass it, on the port the
// emulator already listens on: there is no second, unguarded port. A request passes only if it
// - is signed with SigV4 by the launch's credential, and the signature holds for the request as received
//   (method, path, query, the signed headers and the body) and was made within 15 minutes of now, as AWS
//   requires: what keeps out any process or page without the key, and a signed request replayed later.
//   The credential and the time are checked before the body is read;
// - carries no `Origin` and no `Sec-Fetch-*` header. Current browsers put `Sec-Fetch-*` on every request
//   a page makes to a loopback address, and `Origin` on every POST and CORS request; a page cannot remove
//   either, and the SDK sends neither. So whatever a page managed to sign, it is still refused.
// Everything else is answered 403 with one reason code, before the emulator sees it. No answer carries an
// `Access-Control-*` header (dynalite would send `Allow-Origin: *`), so no page may read one.
// Plain JavaScript, as the worker that loads it.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';

/** Above both emulators' own limits (fauxqs 11 MiB, dynalite 16 MB): they still answer their own 413. */
const MAX_BODY_BYTES = 17 * 1024 * 1024;
const CORS_HEADER = /^access-control-/i;
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** The hash constructor the signer wants, on Node's own crypto. */
class Sha256 {
  constructor(secret) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secret);
  }
  update(data) {
    this.hash.update(data);
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

class Refusal extends Error {
  constructor(reason) {
    super(reason);
    this.name = 'Refusal';
    this.reason = reason;
  }
}

/** Why a request is refused before its body is read, or undefined if it may go on to the signature check. */
function headerRefusal(request) {
  const headers = request.headers;
  if (headers.origin !== undefined) return 'forbidden_origin';
  if (Object.keys(headers).some((name) => name.startsWith('sec-fetch-'))) return 'forbidden_fetch_metadata';
  // A CORS preflight carries an Origin; one without is no SDK call either.
  if (request.method === 'OPTIONS') return 'forbidden_method';
  if (headers.authorization === undefined) return 'missing_credential';
  return undefined;
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let length = 0;
    request.on('data', (chunk) => {
      length += chunk.length;
      if (length > MAX_BODY_BYTES) {
        request.destroy();
        reject(new Refusal('body_too_large'));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** The query as the signer wants it: decoded names and values, repeated names as arrays. */
function parseQuery(search) {
  const query = {};
  if (search === '') return query;
  for (const pair of search.split('&')) {
    const at = pair.indexOf('=');
    const name = decodeURIComponent(at === -1 ? pair : pair.slice(0, at));
    const value = at === -1 ? '' : decodeURIComponent(pair.slice(at + 1));
    const held = query[name];
    query[name] = held === undefined ? value : [...(Array.isArray(held) ? held : [held]), value];
  }
  return query;
}

/** One signer per region and service, built once rather than per request. */
function signerFor(signers, credentials, region, service) {
  const key = `${region}/${service}`;
  let signer = signers.get(key);
  if (signer === undefined) {
    signer = new SignatureV4({
      credentials,
      region,
      service,
      sha256: Sha256,
      // S3 signs its path as sent; every other service signs it escaped once more.
      uriEscapePath: service !== 's3',
      applyChecksum: false,
    });
    signers.set(key, signer);
  }
  return signer;
}

/** How far a signing time may be from the clock, either way: AWS's own window for SigV4. */
const SIGNING_WINDOW_MS = 15 * 60 * 1000;

/**
 * What the Authorization header says, checked before the body is read: its form, the launch's key id, and
 * a signing time within SIGNING_WINDOW_MS of now (a request seen once, in a log or a dump, cannot be sent
 * again later). Throws a Refusal; returns the parts the signature check needs.
 */
function checkCredential(request, credentials, nowMs = Date.now()) {
  const match = AUTHORIZATION.exec(request.headers.authorization);
  if (!match) throw new Refusal('malformed_credential');
  const [, accessKeyId, , region, service, signedHeaderList, signature] = match;
  const keyId = Buffer.from(accessKeyId);
  const ours = Buffer.from(credentials.accessKeyId);
  if (keyId.length !== ours.length || !timingSafeEqual(keyId, ours)) throw new Refusal('unknown_credential');
  const date = AMZ_DATE.exec(request.headers['x-amz-date'] ?? '');
  if (!date) throw new Refusal('malformed_credential');
  const [, year, month, day, hour, minute, second] = date.map(Number);
  const signingDate = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (Math.abs(nowMs - signingDate.getTime()) > SIGNING_WINDOW_MS) throw new Refusal('signature_expired');
  return { region, service, signedHeaderList, signature, signingDate };
}

/**
 * Recomputes the request's SigV4 signature with the launch's secret, over exactly the headers the client
 * says it signed, and compares. Throws a Refusal if it does not hold.
 */
async function checkSignature(request, body, credentials, signers, credential) {
  const { region, service, signedHeaderList, signature, signingDate } = credential;
  const signed = signedHeaderList.split(';');
  if (!signed.includes('host')) throw new Refusal('malformed_credential');
  const headers = {};
  for (const name of signed) {
    const value = request.headers[name];
    if (value === undefined) throw new Refusal('bad_signature');
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // A declared payload hash is what the signature covers, so it must be the body's. Only S3 takes a body it
  // does not cover (UNSIGNED-PAYLOAD, and the streaming forms with their own checksums).
  const declared = request.headers['x-amz-content-sha256'];
  if (declared !== undefined) {
    if (/^[0-9a-f]{64}$/.test(declared)) {
      if (createHash('sha256').update(body).digest('hex') !== declared) throw new Refusal('bad_signature');
    } else if (service !== 's3') {
      throw new Refusal('bad_signature');
    }
  }
  const url = request.url ?? '/';
  const at = url.indexOf('?');
  const signer = signerFor(signers, credentials, region, service);
  let expected;
  try {
    const resigned = await signer.sign(
      {
        method: request.method,
        protocol: 'http:',
        hostname: headers.host,
        path: at === -1 ? url : url.slice(0, at),
        query: at === -1 ? {} : parseQuery(url.slice(at + 1)),
        headers,
        body,
      },
      { signingDate, signableHeaders: new Set(signed) },
    );
    expected = /Signature=([0-9a-f]{64})$/.exec(resigned.headers.authorization)?.[1];
  } catch {
    throw new Refusal('malformed_credential');
  }
  const given = Buffer.from(signature);
  if (expected === undefined || !timingSafeEqual(given, Buffer.from(expected)))
    throw new Refusal('bad_signature');
}

/** The request again, for the emulator: same line, headers and socket, its body replayed from memory. */
function replay(request, body) {
  const copy = new IncomingMessage(request.socket);
  copy.method = request.method;
  copy.url = request.url;
  copy.httpVersion = request.httpVersion;
  copy.httpVersionMajor = request.httpVersionMajor;
  copy.httpVersionMinor = request.httpVersionMinor;
  copy.headers = request.headers;
  copy.rawHeaders = request.rawHeaders;
  copy.trailers = request.trailers;
  copy.rawTrailers = request.rawTrailers;
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}

/** Drops `Access-Control-*` from whatever the emulator answers, however it sets its headers. */
function withoutCors(response) {
  const setHeader = response.setHeader.bind(response);
  response.setHeader = (name, value) => (CORS_HEADER.test(name) ? response : setHeader(name, value));
  const writeHead = response.writeHead.bind(response);
  response.writeHead = (status, ...rest) =>
    writeHead(
      status,
      ...rest.map((part) => {
        if (Array.isArray(part)) {
          const kept = [];
          for (let i = 0; i < part.length; i += 2) {
            if (!CORS_HEADER.test(String(part[i]))) kept.push(part[i], part[i + 1]);
          }
          return kept;
        }
        if (part !== null && typeof part === 'object') {
          return Object.fromEntries(Object.entries(part).filter(([name]) => !CORS_HEADER.test(name)));
        }
        return part;
      }),
    );
  return response;
}

function refuse(response, reason) {
  if (response.headersSent || response.destroyed) return;
  const body = JSON.stringify({ message: 'refused by the local emulator guard', reason });
  // Closed after: the body of a refused request is not read, so the connection cannot carry another.
  response.writeHead(403, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}

/**
 * Puts the guard in front of `server`'s request listeners. `credentials` is the launch's
 * `{ accessKeyId, secretAccessKey }`; `record(outcome, reason, request)` hears of every request
 * (`passed`, or `refused` with its reason).
 */
export function guardServer(server, credentials, record = () => undefined) {
  const listeners = server.listeners('request');
  const signers = new Map();
  server.removeAllListeners('request');
  server.on('request', async (request, response) => {
    let body;
    try {
      const early = headerRefusal(request);
      if (early !== undefined) throw new Refusal(early);
      const credential = checkCredential(request, credentials);
      body = await readBody(request);
      await checkSignature(request, body, credentials, signers, credential);
    } catch (error) {
      const reason = error instanceof Refusal ? error.reason : 'unreadable_request';
      record('refused', reason, request);
      refuse(response, reason);
      return;
    }
    record('passed', undefined, request);
    const copy = replay(request, body);
    withoutCors(response);
    for (const listener of listeners) listener.call(server, copy, response);
  });
}
