import { errors } from '../../src/errors/errors.js';
import { USER_AGENT } from '../../src/version.js';
import { HttpClient, HttpTimeoutError } from '../../src/http/undici-client.js';

/** Sockets kept per remote host. */
const MAX_SOCKETS = 256;

export interface UpstreamResponse {
  status: number;
  body: Buffer;
  /** The remote's `Set-Cookie` headers, passed back to the client (compat-facts 7.2). */
  setCookies: string[];
}

/**
 * POSTs GraphQL requests to remote servers over keep-alive sockets: no retries or
 * redirects (a GraphQL POST is not idempotent in general), the remote's timeout for the
 * whole call, the body returned as bytes so that a result can pass on without re-encoding.
 */
export class UpstreamClient {
  readonly #http = new HttpClient({ maxSockets: MAX_SOCKETS });

  async post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<UpstreamResponse> {
    const all = headers['user-agent'] === undefined ? { ...headers, 'user-agent': USER_AGENT } : headers;
    try {
      const response = await this.#http.post(url, { body, headers: all, timeoutMs });
      return { status: response.status, body: response.body, setCookies: response.headers['set-cookie'] ?? [] };
    } catch (error) {
      if (error instanceof HttpTimeoutError) throw errors.remoteSchemaFailed('$', `the remote server at ${url} did not answer within ${timeoutMs / 1000} seconds (timeout_seconds)`);
      throw errors.remoteSchemaFailed('$', `HTTP exception occurred while sending the request to ${url}: ${(error as { code?: string }).code ?? (error as Error).message}`);
    }
  }

  close(): void {
    this.#http.close();
  }
}
