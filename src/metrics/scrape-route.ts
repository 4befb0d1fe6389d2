import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../errors/errors.js';
import { sendPlain, sendQueryError, type Sent } from '../edge/respond.js';
import type { EngineMetrics } from './engine-metrics.js';

/** Compares in constant time, so the answer's timing tells nothing of the secret. */
function sameSecret(given: string, secret: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `GET /v1/metrics`: this process's metrics in Prometheus' text format. With
 * SERVICE_GRAPHQL_METRICS_SECRET set, only for `Authorization: Bearer <secret>`, as
 * Hasura's metrics endpoint; the admin secret does not open it (a scraper needs no more).
 */
export async function serveMetrics(request: IncomingMessage, response: ServerResponse, metrics: EngineMetrics, secret: string | undefined): Promise<Sent> {
  if (secret !== undefined) {
    const header = request.headers.authorization;
    if (header === undefined) return sendQueryError(response, errors.metricsSecretMissing('$'), false);
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (match === null || !sameSecret(match[1]!, secret)) return sendQueryError(response, errors.metricsSecretWrong('$'), false);
  }
  return sendPlain(response, 200, await metrics.scrape(), metrics.contentType);
}
