import type { Bus, HandlerReply } from '../../../src/bus/bus.js';
import { REPLY_META } from '../../../src/bus/wire.js';
import { graphqlErrorBody } from '../../../src/errors/bodies.js';
import { errors } from '../../../src/errors/errors.js';
import { ServiceError } from '../../../src/errors/service-error.js';
import { jsonTextTooDeep, MAX_JSON_DEPTH } from '../../../src/json/nesting.js';
import type { Session } from '../../../src/session/session.js';
import type { GraphqlRequest } from './engine.js';
import type { SchemaHost } from '../host.js';

interface GraphqlMessage {
  headers: Record<string, string>;
  body: string;
}

function parseBody(body: string): GraphqlRequest | GraphqlRequest[] {
  if (jsonTextTooDeep(body)) throw errors.jsonTooDeep('$', MAX_JSON_DEPTH);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw errors.invalidJson('$', (error as Error).message);
  }
  return Array.isArray(parsed) ? parsed.map((item, index) => checkRequest(item, `$[${index}]`)) : checkRequest(parsed, '$');
}

function checkRequest(item: unknown, path: string): GraphqlRequest {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw errors.parseFailed(path, 'expected a GraphQL request object');
  const request = item as Record<string, unknown>;
  if (typeof request.query !== 'string') throw errors.parseFailed(path, 'key "query" not found');
  if (request.variables != null && (typeof request.variables !== 'object' || Array.isArray(request.variables))) {
    throw errors.parseFailed(`${path}.variables`, 'expected Object for "variables"');
  }
  if (request.operationName != null && typeof request.operationName !== 'string') {
    throw errors.parseFailed(`${path}.operationName`, 'expected String for "operationName"');
  }
  return request as unknown as GraphqlRequest;
}

export interface GraphqlHandlerOptions {
  timeoutMs: number;
  /** An auth webhook in POST mode reads the GraphQL request too; nobody else needs it. */
  sendRequestToAuth: boolean;
}

/**
 * `<p>.graphql`: resolves the caller's session with the auth actor, then runs each
 * request of the body. Every failure is answered in the GraphQL envelope (the edge
 * always sends HTTP 200 on this route, compat-facts 1.2).
 */
export async function handleGraphql(host: SchemaHost, bus: Bus, message: GraphqlMessage, requestId: string, options: GraphqlHandlerOptions): Promise<HandlerReply> {
  try {
    const parsed = parseBody(message.body);
    const resolve = options.sendRequestToAuth ? { headers: message.headers, request: parsed } : { headers: message.headers };
    const session = await bus.request<Session>(bus.subjects.authResolve, resolve, { requestId, timeoutMs: options.timeoutMs });
    const engine = host.state.graphql;
    // Remote servers' Set-Cookie headers go back to the client (compat-facts 7.2) through the reply's meta.
    const setCookies: string[] = [];
    const context = { db: host.db, requestId, bus, headers: message.headers, timeoutMs: options.timeoutMs, setCookies };
    const meta: Record<string, string> = { [REPLY_META.role]: session.role };
    const reply = (body: Uint8Array): HandlerReply => ({ body, meta: setCookies.length === 0 ? meta : { ...meta, [REPLY_META.setCookie]: JSON.stringify(setCookies) } });
    if (!Array.isArray(parsed)) return reply(await engine.execute(parsed, session, context));
    const parts = await Promise.all(parsed.map((request) => engine.execute(request, session, context)));
    return reply(joinJsonArray(parts));
  } catch (error) {
    if (error instanceof ServiceError) return graphqlErrorBody([error]);
    throw error;
  }
}

/** Builds `[a,b,...]` from already-encoded JSON parts, without re-parsing them. */
function joinJsonArray(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0) + parts.length + 1;
  const out = new Uint8Array(Math.max(total, 2));
  out[0] = 0x5b;
  let offset = 1;
  parts.forEach((part, index) => {
    if (index > 0) out[offset++] = 0x2c;
    out.set(part, offset);
    offset += part.length;
  });
  out[offset] = 0x5d;
  return out;
}
