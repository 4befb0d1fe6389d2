import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { type Got, RequestError, TimeoutError } from 'got';
import { ServiceError } from '../../src/errors/service-error.js';
import { ENGINE_VERSION } from '../../src/version.js';

/** compat-facts 0: Hasura's User-Agent in our vocabulary. */
const USER_AGENT = `service-graphql-engine/${ENGINE_VERSION}`;

export interface UpstreamResponse {
  status: number;
  body: Buffer;
}

/** A failure to get an answer from a remote server (compat-facts 1.3 `remote-schema-error`). */
export function remoteSchemaError(message: string, path = '$', status = 400): ServiceError {
  return new ServiceError('remote-schema-error', status, message, path);
}

/**
 * POSTs GraphQL requests to remote servers with `got` over keep-alive sockets: no retries
 * or redirects (a GraphQL POST is not idempotent in general), the remote's timeout for the
 * whole call, the body returned as bytes so that a result can pass on without re-encoding.
 */
export class UpstreamClient {
  readonly #got: Got;

  constructor() {
    this.#got = got.extend({
      agent: { http: new HttpAgent({ keepAlive: true, maxSockets: 256 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 256 }) },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      decompress: true,
    });
  }

  async post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<UpstreamResponse> {
    try {
      const response = await this.#got.post(url, { body, headers: { 'user-agent': USER_AGENT, ...headers }, timeout: { request: timeoutMs }, responseType: 'buffer' });
      return { status: response.statusCode, body: response.body };
    } catch (error) {
      if (error instanceof TimeoutError) throw remoteSchemaError(`the remote server at ${url} did not answer within ${timeoutMs / 1000} seconds (timeout_seconds)`);
      if (error instanceof RequestError) throw remoteSchemaError(`HTTP exception occurred while sending the request to ${url}: ${error.code ?? error.message}`);
      throw error;
    }
  }
}
