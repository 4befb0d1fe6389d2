import { HttpClient, HttpRequestError, HttpTimeoutError } from '../../../src/http/undici-client.js';
import { USER_AGENT } from '../../../src/version.js';
import type { Trigger } from '../trigger-set.js';
import { traceHeaders } from '../../../src/tracing/propagation.js';
import type { TraceContext } from '../../../src/tracing/tracer.js';

/** What one webhook call came to (compat-facts 4.2, 4.3). */
export interface AttemptResult {
  success: boolean;
  /** HTTP status; null without a response (connection error); 500 for a timeout, as newer Hasura logs. */
  status: number | null;
  /** The invocation log's `response` column. */
  response: Record<string, unknown>;
  /** A positive integer `Retry-After`, in seconds. */
  retryAfter: number | null;
  ms: number;
}

/** Codes of a connection that broke before any answer: the one transport hiccup tried again at once. */
const BROKEN_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Calls webhooks with the engine's undici client (src/http/undici-client.ts): POST, the
 * trigger's headers then the default ones (which win on a name clash), `timeout_sec` for
 * the whole request, no redirects and no retries but the transport one below (retrying is
 * the event log's job). Keep-alive sockets are pooled per origin, at most `poolSize` each,
 * matching the in-flight cap.
 */
export class WebhookClient {
  readonly #http: HttpClient;
  /** Each trigger's request headers, built once: a call only adds its trace headers. */
  readonly #headers = new WeakMap<Trigger, Record<string, string>>();

  constructor(poolSize: number) {
    this.#http = new HttpClient({ maxSockets: poolSize });
  }

  #headersOf(trigger: Trigger): Record<string, string> {
    let headers = this.#headers.get(trigger);
    if (headers === undefined) {
      headers = {};
      for (const header of trigger.headers) headers[header.name.toLowerCase()] = header.value;
      headers['content-type'] = 'application/json';
      headers['user-agent'] = USER_AGENT;
      headers['accept-encoding'] = 'gzip, deflate, br';
      this.#headers.set(trigger, headers);
    }
    return headers;
  }

  async post(trigger: Trigger, url: string, body: Buffer, trace?: TraceContext): Promise<AttemptResult> {
    const started = performance.now();
    const headers = this.#headersOf(trigger);
    const call = { body, headers: trace === undefined ? headers : { ...headers, ...traceHeaders(trace) }, timeoutMs: trigger.retry.timeout_sec * 1000 };
    try {
      const response = await this.#http.post(url, call).catch((error: unknown) => {
        // One immediate second try when the connection breaks before an answer: a server
        // closing an idle keep-alive socket as our request goes out is routine. It is a
        // transport hiccup, not an attempt of retry_conf; the webhook may see the request
        // twice, which at-least-once delivery allows. Timeouts and HTTP statuses are not retried.
        if (error instanceof HttpRequestError && BROKEN_CONNECTION.has(error.code)) return this.#http.post(url, call);
        throw error;
      });
      const ms = performance.now() - started;
      const success = response.status >= 200 && response.status < 300;
      const text = response.body.toString();
      return {
        success,
        status: response.status,
        response: success
          ? { type: 'webhook_response', data: { body: text, headers: responseHeaders(response.rawHeaders), status: response.status }, version: '2' }
          : { type: 'client_error', data: { message: text }, version: '2' },
        retryAfter: positiveSeconds(response.headers['retry-after']),
        ms,
      };
    } catch (error) {
      const ms = performance.now() - started;
      const timedOut = error instanceof HttpTimeoutError;
      const message = timedOut ? `request timed out after ${trigger.retry.timeout_sec} s` : String((error as Error).message ?? error);
      return { success: false, status: timedOut ? 500 : null, response: { type: 'client_error', data: { message }, version: '2' }, retryAfter: null, ms };
    }
  }

  /** Closes the idle sockets; calls in flight finish. */
  close(): void {
    this.#http.close();
  }
}

function responseHeaders(raw: string[]): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push({ name: raw[i]!, value: raw[i + 1]! });
  return out;
}

/** Hasura honours `Retry-After` only as a positive integer number of seconds; HTTP dates are ignored. */
function positiveSeconds(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\s*[0-9]+\s*$/.test(text)) return null;
  const seconds = Number(text);
  return seconds > 0 ? seconds : null;
}
