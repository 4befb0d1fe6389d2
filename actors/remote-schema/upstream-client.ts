import { ServiceError } from '../../src/errors/service-error.js';
import { USER_AGENT } from '../../src/version.js';
import { HttpClient, HttpTimeoutError } from './http-client.js';

/** Sockets kept per remote host. */
const MAX_SOCKETS = 256;

export interface UpstreamResponse {
  status: number;
  body: Buffer;
  /** The remote's `Set-Cookie` headers, passed back to the client (compat-facts 7.2). */
  setCookies: string[];
}

/** A failure to get an answer from a remote server (compat-facts 1.3 `remote-schema-error`). */
export function remoteSchemaError(message: string, path = '$', status = 400): ServiceError {
  return new ServiceError('remote-schema-error', status, message, path);
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
      const response = await this.#http.send(url, { body, headers: all, timeoutMs });
      return { status: response.status, body: response.body, setCookies: response.headers['set-cookie'] ?? [] };
    } catch (error) {
      if (error instanceof HttpTimeoutError) throw remoteSchemaError(`the remote server at ${url} did not answer within ${timeoutMs / 1000} seconds (timeout_seconds)`);
      throw remoteSchemaError(`HTTP exception occurred while sending the request to ${url}: ${(error as { code?: string }).code ?? (error as Error).message}`);
    }
  }

  close(): void {
    this.#http.close();
  }
}
