import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { type Got } from 'got';
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

/**
 * Calls webhooks with `got`: POST, the trigger's headers then the default ones (which
 * win on a name clash), `timeout_sec` for the whole request, no redirects and no retries
 * but the transport one below (retrying is the event log's job). Sockets are pooled per instance, at most
 * `poolSize` per host, matching the in-flight cap.
 */
export class WebhookClient {
  readonly #got: Got;
  /** One `got` instance per trigger, its headers and timeout merged once: got's per-call option merging is a large part of a call's CPU. */
  readonly #perTrigger = new WeakMap<Trigger, Got>();

  constructor(poolSize: number) {
    this.#got = got.extend({
      agent: { http: new HttpAgent({ keepAlive: true, maxSockets: poolSize }), https: new HttpsAgent({ keepAlive: true, maxSockets: poolSize }) },
      // One immediate second try when the connection breaks before an answer: a server
      // closing an idle keep-alive socket as our request goes out ("socket hang up") is
      // routine (Node closes them after 5 s, sooner than that when its loop lags). It is a
      // transport hiccup, not an attempt of retry_conf; the webhook may see the request
      // twice, which at-least-once delivery allows. Timeouts and HTTP statuses are not retried.
      retry: {
        limit: 1,
        methods: ['POST'],
        statusCodes: [],
        errorCodes: ['ECONNRESET', 'EPIPE'],
        calculateDelay: ({ computedValue }) => (computedValue === 0 ? 0 : 1),
      },
      throwHttpErrors: false,
      followRedirect: false,
      decompress: true,
    });
  }

  #clientFor(trigger: Trigger): Got {
    let client = this.#perTrigger.get(trigger);
    if (client === undefined) {
      const headers: Record<string, string> = {};
      for (const header of trigger.headers) headers[header.name.toLowerCase()] = header.value;
      headers['content-type'] = 'application/json';
      headers['user-agent'] = USER_AGENT;
      client = this.#got.extend({ headers, timeout: { request: trigger.retry.timeout_sec * 1000 } });
      this.#perTrigger.set(trigger, client);
    }
    return client;
  }

  async post(trigger: Trigger, url: string, body: Buffer, trace?: TraceContext): Promise<AttemptResult> {
    const started = performance.now();
    try {
      const response = await this.#clientFor(trigger).post(url, trace === undefined ? { body } : { body, headers: traceHeaders(trace) });
      const ms = performance.now() - started;
      const success = response.statusCode >= 200 && response.statusCode < 300;
      const text = response.body;
      return {
        success,
        status: response.statusCode,
        response: success
          ? { type: 'webhook_response', data: { body: text, headers: responseHeaders(response.rawHeaders), status: response.statusCode }, version: '2' }
          : { type: 'client_error', data: { message: text }, version: '2' },
        retryAfter: positiveSeconds(response.headers['retry-after']),
        ms,
      };
    } catch (error) {
      const ms = performance.now() - started;
      const timedOut = (error as { name?: string }).name === 'TimeoutError';
      const message = timedOut ? `request timed out after ${trigger.retry.timeout_sec} s` : String((error as Error).message ?? error);
      return { success: false, status: timedOut ? 500 : null, response: { type: 'client_error', data: { message }, version: '2' }, retryAfter: null, ms };
    }
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
