import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { graphqlErrorBody, queryErrorJson } from '../errors/bodies.js';
import type { ServiceError } from '../errors/service-error.js';

/** Below this a gzip round costs more than the bytes it saves. */
const GZIP_MIN_BYTES = 1024;

export interface Sent {
  status: number;
}

/**
 * Sends a successful body. It carries `x-request-id`, and is gzip-compressed when the
 * client accepts it (compat-facts 9).
 */
export function sendBody(request: IncomingMessage, response: ServerResponse, status: number, body: Uint8Array, contentType: string, requestId: string): Sent {
  const headers: Record<string, string | number> = { 'content-type': contentType, 'x-request-id': requestId };
  let payload = body;
  if (body.length >= GZIP_MIN_BYTES && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
    payload = gzipSync(body);
    headers['content-encoding'] = 'gzip';
  }
  headers['content-length'] = payload.length;
  response.writeHead(status, headers);
  response.end(payload);
  return { status };
}

/**
 * Sends an error in the metadata style `{path, error, code}` (plus `internal` for admin),
 * with only Content-Type and Content-Length, as Hasura does (compat-facts 1.1, 9).
 */
export function sendQueryError(response: ServerResponse, error: ServiceError, showInternal: boolean): Sent {
  return sendPlain(response, error.status, queryErrorJson(error, showInternal), 'application/json; charset=utf-8');
}

/** A GraphQL-envelope error, always HTTP 200 on /v1/graphql (compat-facts 1.2). */
export function sendGraphqlError(response: ServerResponse, error: ServiceError): Sent {
  return sendPlain(response, 200, graphqlErrorBody([error]), 'application/json; charset=utf-8');
}

export function sendPlain(response: ServerResponse, status: number, text: string | Uint8Array, contentType: string): Sent {
  const payload = typeof text === 'string' ? Buffer.from(text) : text;
  response.writeHead(status, { 'content-type': contentType, 'content-length': payload.length });
  response.end(payload);
  return { status };
}
