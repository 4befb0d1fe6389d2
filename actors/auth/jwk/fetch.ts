import got from 'got';
import { USER_AGENT } from '../../../src/version.js';

export interface JwkResponse {
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** Fetches a JWK set; throws on a network error, a non-2xx status or a body that is not JSON. */
export type JwkFetcher = (url: string) => Promise<JwkResponse>;

export function httpJwkFetcher(timeoutMs = 10_000): JwkFetcher {
  return async (url) => {
    let response;
    try {
      response = await got(url, {
        timeout: { request: timeoutMs },
        retry: { limit: 0 },
        throwHttpErrors: false,
        headers: { 'user-agent': USER_AGENT, accept: 'application/json' },
      });
    } catch (error) {
      throw new Error(`Error fetching JWK: ${(error as Error).message}`, { cause: error });
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      throw new Error(`Non-2xx response on fetching JWK from: ${url} (status ${response.statusCode})`);
    }
    try {
      return { body: JSON.parse(response.body) as unknown, headers: response.headers };
    } catch (error) {
      throw new Error(`Error parsing JWK from url: ${url}: ${(error as Error).message}`, { cause: error });
    }
  };
}
