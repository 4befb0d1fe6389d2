import { validateHeaderName, validateHeaderValue, type IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import { decompress } from './decompress.js';

/**
 * The engine's client for its hot outgoing calls, webhook delivery and remote-schema
 * forwarding, which run once per event or per remote request (issue 16). It is undici,
 * Node's own maintained client, driven through its dispatcher: a pool of keep-alive
 * sockets per origin, and no stream, option merging or hook chain per call. `got` cost
 * ~0.2 ms of CPU per webhook call, the largest part of an event's delivery; the
 * hand-written `node:http` client it replaces for remotes was lean but ours to maintain.
 * `got`, which the design card names, stays where a call's cost does not decide the
 * engine's capacity (the auth hook, JWK sets).
 *
 * One POST, whatever the status: no redirect is followed (a 3xx is an answer like any
 * other), nothing is retried (a GraphQL POST may be a mutation; a webhook's retries are the
 * event log's job), the time limit covers the whole call, and a gzip, deflate or brotli
 * body comes back decompressed.
 */

/** A complete answer of an HTTP server: whatever its status, the body decompressed. */
export interface HttpResponse {
  status: number;
  /** Names lowercased; `set-cookie` a list, other repeated headers joined by ", " (as Node's http does). */
  headers: IncomingHttpHeaders;
  /** Names and values in turn, as the server wrote them. */
  rawHeaders: string[];
  body: Buffer;
}

export interface HttpPost {
  headers?: Record<string, string>;
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

/**
 * The largest answer taken, before and after decompression: a webhook or remote server
 * answering without end, or with a few MB of gzip that expand to gigabytes, would
 * otherwise take the process's memory. 100 MiB is far above any GraphQL answer or webhook
 * reply an engine should hold.
 */
export const MAX_RESPONSE_BYTES = 100 * 1024 * 1024;

interface Target {
  origin: string;
  path: string;
  /** Basic credentials from the URL's user and password, sent unless the call has its own Authorization (as Node's http did). */
  authorization: string | null;
}

export class HttpClient {
  readonly #agent: Agent;
  readonly #targets = new Map<string, Target>();
  readonly #maxResponseBytes: number;

  /** `maxSockets`: connections kept per origin, the most calls in flight to one server; `maxResponseBytes`: the largest answer taken. */
  constructor(options: { maxSockets: number; maxResponseBytes?: number }) {
    this.#agent = new Agent({ connections: options.maxSockets, pipelining: 1 });
    this.#maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  }

  /** POSTs `call.body`; whatever the status, resolves with the whole answer. */
  post(url: string, call: HttpPost): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      const target = this.#target(url);
      if (target instanceof HttpRequestError) {
        reject(target);
        return;
      }
      let headers: Record<string, string> | undefined;
      try {
        headers = outgoingHeaders(call.headers, target.authorization);
      } catch (error) {
        reject(new HttpRequestError((error as NodeJS.ErrnoException).code ?? 'ERR_INVALID_HEADER', (error as Error).message));
        return;
      }
      const options: Dispatcher.DispatchOptions = { origin: target.origin, path: target.path, method: 'POST', headers, body: call.body, headersTimeout: 0, bodyTimeout: 0 };
      this.#agent.dispatch(options, new CallHandler(call.timeoutMs, this.#maxResponseBytes, resolve, reject));
    });
  }

  /** Closes the idle sockets; calls in flight finish. */
  close(): void {
    void this.#agent.close();
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
    const credentials = parsed.username === '' && parsed.password === '' ? null : `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, authorization: credentials === null ? null : `Basic ${Buffer.from(credentials).toString('base64')}` };
    if (this.#targets.size >= TARGETS_KEPT) this.#targets.clear();
    this.#targets.set(url, target);
    return target;
  }
}

/** One call's callbacks from undici's dispatcher: collects the body, keeps the time limit, settles once. */
class CallHandler implements Dispatcher.DispatchHandler {
  readonly #chunks: Buffer[] = [];
  #received = 0;
  readonly #timer: NodeJS.Timeout;
  #abort: ((error?: Error) => void) | null = null;
  #status = 0;
  #rawHeaders: Buffer[] = [];
  #settled = false;

  constructor(
    readonly timeoutMs: number,
    readonly maxResponseBytes: number,
    readonly resolve: (response: HttpResponse) => void,
    readonly reject: (error: Error) => void,
  ) {
    this.#timer = setTimeout(() => {
      this.#fail(new HttpTimeoutError(timeoutMs));
      this.#abort?.(new HttpTimeoutError(timeoutMs));
    }, timeoutMs);
  }

  onConnect(abort: (error?: Error) => void): void {
    if (this.#settled) abort(new HttpTimeoutError(this.timeoutMs));
    else this.#abort = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[]): boolean {
    this.#status = status;
    this.#rawHeaders = rawHeaders;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#received += chunk.length;
    if (this.#received > this.maxResponseBytes) {
      const error = tooLarge(this.maxResponseBytes);
      this.#fail(error);
      this.#abort?.(error);
      return false;
    }
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    const raw = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    const rawHeaders = this.#rawHeaders.map((value) => value.toString('latin1'));
    const headers = headerObject(rawHeaders);
    if (this.#settled) return;
    decompress(raw, headers['content-encoding'], this.maxResponseBytes).then(
      (body) => {
        if (this.#settle()) this.resolve({ status: this.#status, headers, rawHeaders, body });
      },
      (error: NodeJS.ErrnoException) =>
        this.#fail(error.code === 'ERR_BUFFER_TOO_LARGE' ? tooLarge(this.maxResponseBytes) : new HttpRequestError('ERR_CONTENT_DECODING', `the response body does not decompress: ${error.message}`)),
    );
  }

  onError(error: Error): void {
    this.#fail(transportError(error));
  }

  #fail(error: Error): void {
    if (this.#settle()) this.reject(error);
  }

  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    clearTimeout(this.#timer);
    return true;
  }
}

function tooLarge(limit: number): HttpRequestError {
  return new HttpRequestError('ERR_RESPONSE_TOO_LARGE', `the response body is larger than ${limit} bytes`);
}

/**
 * undici's errors in the words the engine used before it (Node's http): a socket closed
 * before the whole answer is a reset, "socket hang up"; a refused connection keeps Node's own code and message.
 */
function transportError(error: Error): HttpRequestError {
  const code = (error as NodeJS.ErrnoException).code ?? 'ERR_REQUEST';
  if (code === 'UND_ERR_SOCKET' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return new HttpRequestError('ECONNRESET', 'socket hang up');
  return new HttpRequestError(code, error.message);
}

/** Headers that frame or hold the connection: the client sets them from the body and its pool. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'content-length']);

/**
 * The call's headers checked as Node's http checks them (throwing its errors), without the
 * connection ones, with the URL's credentials when the call has no Authorization. Checked
 * here because undici, handed a header it refuses, also keeps a connection slot of the
 * origin taken for good: a few such calls and every later call to that server waits.
 */
function outgoingHeaders(headers: Record<string, string> | undefined, authorization: string | null): Record<string, string> | undefined {
  let dropped = false;
  let authorized = false;
  for (const name in headers) {
    validateHeaderName(name);
    validateHeaderValue(name, headers[name]!);
    const lower = name.toLowerCase();
    if (CONNECTION_HEADERS.has(lower)) dropped = true;
    else if (lower === 'authorization') authorized = true;
  }
  if (!dropped && (authorization === null || authorized)) return headers;
  const out: Record<string, string> = {};
  for (const name in headers) if (!CONNECTION_HEADERS.has(name.toLowerCase())) out[name] = headers[name]!;
  if (authorization !== null && !authorized) out.authorization = authorization;
  return out;
}

function headerObject(raw: string[]): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    if (name === 'set-cookie') (headers['set-cookie'] ??= []).push(value);
    else {
      const before = headers[name];
      headers[name] = before === undefined ? value : `${before as string}, ${value}`;
    }
  }
  return headers;
}
