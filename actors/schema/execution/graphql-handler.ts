import type { Bus, HandlerReply } from '../../../src/bus/bus.js';
import { REPLY_META } from '../../../src/bus/wire.js';
import { graphqlErrorBody } from '../../../src/errors/bodies.js';
import { errors } from '../../../src/errors/errors.js';
import { ServiceError } from '../../../src/errors/service-error.js';
import type { BoundedPool } from '../../../src/pg/bounded-client.js';
import type { Cancellation } from '../../../src/request/cancellation.js';
import { jsonTextTooDeep, MAX_JSON_DEPTH } from '../../../src/json/nesting.js';
import { USER_ID_VARIABLE, type Session } from '../../../src/session/session.js';
import type { Logger } from '../../../src/log/logger.js';
import type { TraceContext } from '../../../src/tracing/tracer.js';
import type { TypedLog } from '../../../src/log/log-types.js';
import { errorCodeOf, newOperationFacts, operationMeta, queryHash, type OperationFacts } from '../../../src/log/operation-facts.js';
import { roleLimits, type RoleLimits } from './api-limits.js';
import { runBatch } from './batch.js';
import type { GraphqlRequest } from './engine.js';
import { rateLimitedClient, type RateLimiter } from './rate-limiter.js';
import type { SchemaHost } from '../host.js';

/** `<p>.graphql` (schemas/bus/graphql-request.json). */
export interface GraphqlMessage {
  headers: Record<string, string>;
  body: string;
  client_address?: string;
  cancel_key: string;
  /** Sent to /v1beta1/relay: answered from the role's Relay schema. */
  relay?: boolean;
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
  db: BoundedPool;
  timeoutMs: number;
  /** The longest any request's statements may run (the server's statement timeout). */
  statementTimeoutMs: number;
  /** An auth webhook in POST mode reads the GraphQL request too; nobody else needs it. */
  sendRequestToAuth: boolean;
  rateLimiter: RateLimiter;
  /** SERVICE_GRAPHQL_TRUST_PROXY_HEADERS: a client's IP from x-real-ip / x-forwarded-for. */
  trustProxyHeaders: boolean;
  log: Logger;
  /** query-log: each request's statements, for admin debugging. */
  queryLog: TypedLog;
  /** Requests refused by a rate limit, for the heartbeat. */
  counters: { rateLimited: number };
  /** Told of each request a rate limit refuses (the metrics' count). */
  onRateLimited: (() => void) | undefined;
}

/** Room left for the answer to reach the edge before the edge stops waiting for it. */
const REPLY_MARGIN_MS = 250;

/** The request's own time is up before the edge's bus timeout passes, so its caller hears why. */
export function requestDeadline(received: number, options: { timeoutMs: number; statementTimeoutMs: number }): number {
  return received + Math.min(options.statementTimeoutMs, Math.max(options.timeoutMs - REPLY_MARGIN_MS, options.timeoutMs / 2));
}

/**
 * `<p>.graphql`: resolves the caller's session with the auth actor, then runs each
 * request of the body (a batch's in order, batch.ts). Every failure is answered in the GraphQL envelope (the edge
 * always sends HTTP 200 on this route, compat-facts 1.2).
 */
export async function handleGraphql(host: SchemaHost, bus: Bus, message: GraphqlMessage, requestId: string, cancellation: Cancellation, options: GraphqlHandlerOptions, trace?: TraceContext): Promise<HandlerReply> {
  const received = Date.now();
  const started = performance.now();
  const facts = newOperationFacts();
  let authMs = 0;
  let parsed: GraphqlRequest | GraphqlRequest[] | undefined;
  let session: Session | undefined;
  // The log facts of every answer, errors included: a failed request must not log like a success.
  // Built by assignment rather than spreads of optional parts: it runs for every request.
  const meta = (errorCode: string | undefined, setCookie?: string): Record<string, string> => {
    const planMs = Math.max(0, performance.now() - started - authMs - facts.sqlMs);
    const query = parsed === undefined ? undefined : Array.isArray(parsed) ? parsed.map((item) => item.query).join('\n') : parsed.query;
    const extra: { queryHash?: string; errorCode?: string; userId?: string } = {};
    if (errorCode !== undefined) extra.errorCode = errorCode;
    if (query !== undefined) extra.queryHash = queryHash(query);
    const userId = session?.variables[USER_ID_VARIABLE];
    if (userId !== undefined) extra.userId = userId;
    const fields = operationMeta(facts, { authMs, planMs }, extra);
    if (session !== undefined) fields[REPLY_META.role] = session.role;
    if (setCookie !== undefined) fields[REPLY_META.setCookie] = setCookie;
    return fields;
  };
  try {
    parsed = parseBody(message.body);
    const resolve = options.sendRequestToAuth ? { headers: message.headers, request: parsed } : { headers: message.headers };
    const caller = await bus.request<Session>(bus.subjects.authResolve, resolve, { requestId, timeoutMs: options.timeoutMs, trace });
    session = caller;
    authMs = performance.now() - started;
    const limits = roleLimits(host.state.metadata.api_limits, caller);
    await admit(limits, caller, message, Array.isArray(parsed) ? parsed.length : null, options);
    const deadline = Math.min(requestDeadline(received, options), received + (limits.timeMs ?? Number.POSITIVE_INFINITY));
    const engine = host.state.graphql;
    // Remote servers' Set-Cookie headers go back to the client (compat-facts 7.2) through the reply's meta.
    const setCookies: string[] = [];
    const context = { db: options.db, requestId, bus, headers: message.headers, timeoutMs: options.timeoutMs, setCookies, cancellation, deadline, relay: message.relay === true, trace, facts };
    const reply = (body: Uint8Array, errorCode = errorCodeOf(body)): HandlerReply => {
      logStatements(options.queryLog, facts, requestId, caller);
      return { body, meta: meta(errorCode, setCookies.length === 0 ? undefined : JSON.stringify(setCookies)) };
    };
    if (!Array.isArray(parsed)) return reply(await engine.execute(parsed, caller, context));
    const parts = await runBatch(parsed, (request) => engine.execute(request, caller, context), context, options.log);
    return reply(joinJsonArray(parts), parts.map(errorCodeOf).find((code) => code !== undefined));
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const body = graphqlErrorBody([error]);
    return { body, meta: meta(error.code) };
  }
}

function logStatements(queryLog: TypedLog, facts: OperationFacts, requestId: string, session: Session): void {
  if (!queryLog.enabled || facts.statements.length === 0) return;
  queryLog.info({ requestId, role: session.role, operationName: facts.operations.map((operation) => operation.name ?? '').join(','), statements: facts.statements }, 'query');
}

/** Refuses a batch larger than the role's batch limit, and a client over its rate limit (each operation of a batch counts). */
async function admit(limits: RoleLimits, session: Session, message: GraphqlMessage, batchSize: number | null, options: GraphqlHandlerOptions): Promise<void> {
  if (batchSize !== null && limits.batch !== undefined && batchSize > limits.batch) throw errors.batchLimitExceeded('$');
  const rate = limits.rate;
  if (rate === undefined) return;
  const client = rateLimitedClient(rate, session, message.headers, message.client_address ?? '', options.trustProxyHeaders);
  let admitted: boolean;
  try {
    admitted = await options.rateLimiter.admit(client, rate.max_reqs_per_min, batchSize ?? 1);
  } catch (error) {
    // The counts live in JetStream: while it cannot be reached, requests are served uncounted rather than refused.
    options.log.warn({ err: error }, 'rate limit counts unavailable; request admitted uncounted');
    return;
  }
  if (!admitted) {
    // One count, two readers: the heartbeat (the monitor) and the metrics.
    options.counters.rateLimited++;
    options.onRateLimited?.();
    throw errors.rateLimitExceeded('$', rate.max_reqs_per_min);
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
