import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type RequestOptions } from 'node:http';
import { urlToHttpOptions } from 'node:url';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { brotliDecompress, gunzip, inflate, inflateRaw } from 'node:zlib';

/** A complete answer of an HTTP server: whatever its status, the body decompressed. */
export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpPost {
  headers?: OutgoingHttpHeaders;
  body: string | Uint8Array;
  /** For the whole call: connecting, sending and reading the whole body. */
  timeoutMs: number;
}

/** No complete answer within the call's time. */
export class HttpTimeoutError extends Error {
  override readonly name = 'HttpTimeoutError';

  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** No answer at all: a bad URL, a refused or broken connection, a body that does not decompress. */
export class HttpRequestError extends Error {
  override readonly name = 'HttpRequestError';

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Parsed URLs kept; beyond this many distinct ones the cache starts over. */
const TARGETS_KEPT = 1000;

type Target = RequestOptions & { protocol: string };

/**
 * The remote-schema actor's HTTP client: keep-alive sockets, at most `maxSockets` per host,
 * no redirects followed and nothing retried (a GraphQL POST may be a mutation).
 *
 * The one place the engine does not use `got` (ARCHITECTURE, chosen libraries): a remote
 * query is forwarded on every request, and got's option merging, hooks and stream wrapping
 * cost ~110-150 µs of CPU per call on the benchmark machine (got's stream interface took
 * 151-196 µs per call against 41-52 µs for this client, a trivial local server included),
 * more than the rest of forwarding together and more than issue 7's throughput target
 * leaves. Webhooks, the auth hook and JWK sets, where a call's cost does not decide
 * the engine's capacity, keep got.
 */
export class HttpClient {
  readonly #http: HttpAgent;
  readonly #https: HttpsAgent;
  readonly #targets = new Map<string, Target>();

  constructor(options: { maxSockets: number }) {
    this.#http = new HttpAgent({ keepAlive: true, maxSockets: options.maxSockets, scheduling: 'lifo' });
    this.#https = new HttpsAgent({ keepAlive: true, maxSockets: options.maxSockets, scheduling: 'lifo' });
  }

  /** POSTs `call.body`; whatever the status, resolves with the whole answer. */
  post(url: string, call: HttpPost): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      const target = this.#target(url);
      if (target instanceof HttpRequestError) {
        reject(target);
        return;
      }
      const secure = target.protocol === 'https:';
      const body = typeof call.body === 'string' ? Buffer.from(call.body) : call.body;
      const headers: OutgoingHttpHeaders = { ...call.headers, 'content-length': body.byteLength };
      const open = secure ? httpsRequest : httpRequest;
      const request = open({ ...target, method: 'POST', headers, agent: secure ? this.#https : this.#http });
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const timer = setTimeout(() => {
        settle(() => reject(new HttpTimeoutError(call.timeoutMs)));
        request.destroy();
      }, call.timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => settle(() => reject(new HttpRequestError(error.code ?? 'ERR_REQUEST', error.message))));
      request.on('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error: NodeJS.ErrnoException) => settle(() => reject(new HttpRequestError(error.code ?? 'ERR_RESPONSE', error.message))));
        response.on('close', () => {
          if (!response.complete) settle(() => reject(new HttpRequestError('ECONNRESET', 'the connection closed before the whole response arrived')));
        });
        response.on('end', () => {
          const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          decompress(raw, response.headers['content-encoding']).then(
            (decoded) => settle(() => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: decoded })),
            (error: Error) => settle(() => reject(new HttpRequestError('ERR_CONTENT_DECODING', `the response body does not decompress: ${error.message}`))),
          );
        });
      });
      request.end(body);
    });
  }

  /** Closes the idle sockets; calls in flight finish. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }

  /** Where a URL points, parsed once: callers send to a handful of URLs, again and again. */
  #target(url: string): Target | HttpRequestError {
    let target = this.#targets.get(url);
    if (target !== undefined) return target;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return new HttpRequestError('ERR_INVALID_URL', `invalid URL: ${url}`);
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return new HttpRequestError('ERR_UNSUPPORTED_PROTOCOL', `unsupported protocol ${parsed.protocol} in ${url}`);
    target = urlToHttpOptions(parsed) as Target;
    if (this.#targets.size >= TARGETS_KEPT) this.#targets.clear();
    this.#targets.set(url, target);
    return target;
  }
}

function decompress(body: Buffer, encoding: string | undefined): Promise<Buffer> {
  const name = encoding?.trim().toLowerCase();
  if (name === undefined || name === '' || name === 'identity' || body.length === 0) return Promise.resolve(body);
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Buffer) => (error === null ? resolve(result) : reject(error));
    if (name === 'gzip' || name === 'x-gzip') gunzip(body, done);
    else if (name === 'br') brotliDecompress(body, done);
    // "deflate" is meant to be zlib-wrapped, but some servers send it raw.
    else if (name === 'deflate') (body[0]! & 0x0f) === 0x08 ? inflate(body, done) : inflateRaw(body, done);
    else resolve(body);
  });
}
