import type { IncomingMessage, ServerResponse } from 'node:http';
import { Bus } from '../bus/bus.js';
import type { QueryEndpoint } from '../bus/messages/requests.js';
import { encodeJson, REPLY_META } from '../bus/wire.js';
import type { Config } from '../config/load.js';
import type { ApiName } from '../config/options.js';
import { configReport } from '../config/report.js';
import { errors } from '../errors/errors.js';
import { jsonTextTooDeep, MAX_JSON_DEPTH } from '../json/nesting.js';
import { ServiceError } from '../errors/service-error.js';
import type { Logger } from '../log/logger.js';
import { typedLog } from '../log/log-types.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import { serveMetrics } from '../metrics/scrape-route.js';
import { isAdmin, type Session } from '../session/session.js';
import { extractTraceFromRecord } from '../tracing/propagation.js';
import { SpanKind, annotateSpan, failSpan, tracedEntry, tracingEnabled, type TraceContext } from '../tracing/tracer.js';
import { ENGINE_VERSION } from '../version.js';
import { flattenHeaders, readBody } from './body.js';
import { cancelOnClose, cancelRequest } from './cancel-on-close.js';
import { consoleBuildDir, consoleEnabled, createConsoleServer } from './console-files.js';
import { createCors } from './cors.js';
import type { MonitorStreams } from './monitor-stream.js';
import { sendBody, sendGraphqlError, sendPlain, sendQueryError, type Sent } from './respond.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** What the per-request log line says beyond method, path, status and time. */
interface RequestFacts {
  requestId: string;
  /** The HTTP request's span context: every bus hop of the request is its child. */
  trace?: TraceContext | undefined;
  role?: string;
  operation?: string;
  /** A /v1/graphql reply's log facts, the JSON text of an object (wire.ts REPLY_META.logFields). */
  logFields?: string;
  /** A /v1/graphql reply's error code (the whole request failed), for the request's span. */
  errorCode?: string;
  /** The time spent sending a /v1/graphql reply. */
  sendMs?: number;
}

type RouteHandler = (request: IncomingMessage, response: ServerResponse, facts: RequestFacts) => Promise<Sent>;

interface Route {
  method: 'GET' | 'POST';
  api?: ApiName;
  handle: RouteHandler;
}

export interface EdgeDeps {
  bus: Bus;
  config: Config;
  log: Logger;
  /** Largest body accepted: the configured limit, capped by what one NATS message can carry. */
  bodyLimit: number;
  /** Set when the metrics API is enabled: what /v1/metrics serves. */
  metrics: EngineMetrics | undefined;
  /** What /v1/monitor/stream relays. */
  monitorStreams: MonitorStreams;
}

/**
 * The HTTP edge: each route turns a request into one bus message (two for /v1/query,
 * which first resolves the caller's session) and the reply into a response. No business
 * logic lives here; statuses and error encodings per route do (compat-facts 1.2).
 */
export function createEdgeHandler(deps: EdgeDeps): (request: IncomingMessage, response: ServerResponse) => Promise<number> {
  const { bus, config } = deps;
  const timeoutMs = config.busTimeoutMs;
  const subjects = bus.subjects;

  const resolveSession = (request: IncomingMessage, facts: RequestFacts): Promise<Session> =>
    bus.request<Session>(subjects.authResolve, { headers: flattenHeaders(request) }, { requestId: facts.requestId, timeoutMs, trace: facts.trace });

  // /v1/query, /v1/metadata and /v2/query: one handler; the schema actor decides what each endpoint serves.
  const query = (endpoint: QueryEndpoint): RouteHandler => async (request, response, facts) => {
    let session: Session | undefined;
    try {
      const bytes = await readBody(request, deps.bodyLimit);
      const body = parseJson(bytes);
      if (typeof body === 'object' && body !== null && typeof (body as { type?: unknown }).type === 'string') {
        facts.operation = (body as { type: string }).type;
      }
      session = await resolveSession(request, facts);
      facts.role = session.role;
      const reply = await bus.ask(subjects.query, { session, body, endpoint }, { requestId: facts.requestId, timeoutMs, trace: facts.trace });
      return sendBody(request, response, 200, reply.body, JSON_TYPE, facts.requestId);
    } catch (error) {
      return sendQueryError(response, asServiceError(error, deps.log, facts), session !== undefined && isAdmin(session));
    }
  };

  // /v1beta1/relay is served as /v1/graphql is, from the role's Relay schema (compat-facts 1.2: also always 200).
  const graphqlRoute = (relay: boolean): RouteHandler => async (request, response, facts) => {
    try {
      const bytes = await readBody(request, deps.bodyLimit);
      const cancelKey = Bus.newRequestId();
      const message = { headers: flattenHeaders(request), body: bytes.toString('utf8'), client_address: request.socket.remoteAddress ?? '', cancel_key: cancelKey, ...(relay ? { relay } : {}) };
      cancelOnClose(response, bus, cancelKey);
      // The edge stopped waiting (bus timeout): the request's statements stop too.
      const reply = await bus.ask(subjects.graphql, message, { requestId: facts.requestId, timeoutMs, trace: facts.trace }).catch((error: unknown) => {
        cancelRequest(bus, cancelKey);
        throw error;
      });
      facts.role = reply.meta[REPLY_META.role];
      const sending = performance.now();
      facts.logFields = reply.meta[REPLY_META.logFields];
      facts.errorCode = reply.meta[REPLY_META.errorCode];
      // Remote servers' cookies, a JSON array in the reply's meta (compat-facts 7.2).
      const cookies = reply.meta[REPLY_META.setCookie];
      if (cookies !== undefined) response.setHeader('set-cookie', JSON.parse(cookies) as string[]);
      const sent = sendBody(request, response, 200, reply.body, JSON_TYPE, facts.requestId);
      facts.sendMs = Math.round((performance.now() - sending) * 100) / 100;
      return sent;
    } catch (error) {
      return sendGraphqlError(response, asServiceError(error, deps.log, facts));
    }
  };

  const graphql = graphqlRoute(false);
  // Hasura serves only persisted queries on GET /v1/graphql, after authenticating the caller, and
  // answers this without them; persisted-query clients take it as "send the query by POST".
  const graphqlGet: RouteHandler = async (request, response, facts) => {
    try {
      facts.role = (await resolveSession(request, facts)).role;
      throw errors.persistedQueryNotSupported('$');
    } catch (error) {
      return sendGraphqlError(response, asServiceError(error, deps.log, facts));
    }
  };

  const configApi: RouteHandler = async (request, response, facts) => {
    try {
      const session = await resolveSession(request, facts);
      facts.role = session.role;
      if (!isAdmin(session)) throw errors.adminOnly('$');
      return sendBody(request, response, 200, encodeJson(configReport(config, ENGINE_VERSION)), JSON_TYPE, facts.requestId);
    } catch (error) {
      return sendQueryError(response, asServiceError(error, deps.log, facts), false);
    }
  };

  const monitorStream: RouteHandler = async (request, response, facts) => {
    try {
      const session = await resolveSession(request, facts);
      facts.role = session.role;
      if (!isAdmin(session)) throw errors.adminOnly('$');
      return deps.monitorStreams.serve(request, response);
    } catch (error) {
      return sendQueryError(response, asServiceError(error, deps.log, facts), false);
    }
  };

  const version: RouteHandler = async (request, response, facts) =>
    sendBody(request, response, 200, encodeJson({ version: ENGINE_VERSION, server_type: 'ce' }), JSON_TYPE, facts.requestId);

  const health: RouteHandler = async (request, response, facts) => {
    const strict = new URL(request.url ?? '/', 'http://edge').searchParams.get('strict') === 'true';
    try {
      const state = await bus.request<{ database: boolean; consistent: boolean }>(subjects.health, {}, { requestId: facts.requestId, timeoutMs: Math.min(timeoutMs, 5000) });
      if (!state.database) return sendPlain(response, 500, 'ERROR', 'text/plain; charset=utf-8');
      if (state.consistent) return sendPlain(response, 200, 'OK', 'text/plain; charset=utf-8');
      return sendPlain(response, strict ? 500 : 200, `${strict ? 'ERROR' : 'WARN'}: inconsistent objects in schema`, 'text/plain; charset=utf-8');
    } catch (error) {
      const serviceError = asServiceError(error, deps.log, facts);
      return sendPlain(response, serviceError.status === 503 ? 503 : 500, `ERROR: ${serviceError.message}`, 'text/plain; charset=utf-8');
    }
  };

  const routes = new Map<string, Route[]>([
    ['/healthz', [{ method: 'GET', handle: health }]],
    ['/service/healthz', [{ method: 'GET', handle: health }]],
    ['/v1/version', [{ method: 'GET', handle: version }]],
    ['/v1/metrics', deps.metrics === undefined ? [] : [{ method: 'GET', api: 'metrics', handle: (request, response) => serveMetrics(request, response, deps.metrics!, config.metricsSecret) }]],
    ['/v1alpha1/config', [{ method: 'GET', api: 'config', handle: configApi }]],
    ['/v1/monitor/stream', [{ method: 'GET', api: 'metadata', handle: monitorStream }]],
    ['/v1/query', [{ method: 'POST', api: 'metadata', handle: query('v1/query') }]],
    ['/v1/metadata', [{ method: 'POST', api: 'metadata', handle: query('v1/metadata') }]],
    ['/v2/query', [{ method: 'POST', api: 'metadata', handle: query('v2/query') }]],
    ['/v1/graphql', [{ method: 'POST', api: 'graphql', handle: graphql }, { method: 'GET', api: 'graphql', handle: graphqlGet }]],
    ['/v1alpha1/graphql', [{ method: 'POST', api: 'graphql', handle: graphql }]],
    ['/v1beta1/relay', [{ method: 'POST', api: 'graphql', handle: graphqlRoute(true) }]],
    // The name Hasura's Relay API took when it left beta (v2.49); the old one stays.
    ['/v1/relay', [{ method: 'POST', api: 'graphql', handle: graphqlRoute(true) }]],
  ]);
  // Per path, the handlers of the enabled APIs by method: a path whose APIs are all disabled is not there (404).
  const served = new Map<string, Map<string, RouteHandler>>();
  for (const [path, candidates] of routes) {
    const enabled = candidates.filter((route) => route.api === undefined || config.enabledApis.includes(route.api));
    if (enabled.length > 0) served.set(path, new Map(enabled.map((route) => [route.method, route.handle])));
  }

  const serveConsole = consoleEnabled(config) ? createConsoleServer(consoleBuildDir()) : undefined;
  const cors = createCors(config);
  const httpLog = typedLog(deps.log, 'http-log', config.enabledLogTypes);
  const logRequests = httpLog.enabled;
  return async (request, response) => {
    const facts: RequestFacts = { requestId: headerValue(request, 'x-request-id') ?? Bus.newRequestId() };
    const started = logRequests ? performance.now() : 0;
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const methods = served.get(path);
    const handle = methods?.get(request.method ?? '');
    // A preflight or a refused origin is answered before any route.
    let sent = cors.http(request, response);
    if (sent === undefined) {
      if (handle !== undefined) sent = await handleTraced(handle, request, response, facts, path);
      else if (methods !== undefined) sent = sendQueryError(response, errors.methodNotAllowed('$', request.method ?? ''), false);
      else sent = serveConsole?.(request, response, path) ?? sendQueryError(response, errors.notFound('$'), false);
    }
    if (logRequests) {
      httpLog.info(
        { method: request.method, path, status: sent.status, ms: Math.round((performance.now() - started) * 100) / 100, role: facts.role, operation: facts.operation, requestId: facts.requestId, sendMs: facts.sendMs },
        'request',
        facts.logFields,
      );
    }
    return sent.status;
  };
}

/** Runs a route inside the request's server span (continuing an incoming `traceparent`) when tracing is on. */
function handleTraced(handle: RouteHandler, request: IncomingMessage, response: ServerResponse, facts: RequestFacts, path: string): Promise<Sent> {
  if (!tracingEnabled()) return handle(request, response, facts);
  const attributes = { 'http.request.method': request.method ?? '', 'url.path': path, 'service.request_id': facts.requestId };
  return tracedEntry(`${request.method ?? 'GET'} ${path}`, extractTraceFromRecord(request.headers), { kind: SpanKind.SERVER, attributes }, async (context) => {
    facts.trace = context;
    const sent = await handle(request, response, facts);
    annotateSpan(context, 'http.response.status_code', sent.status);
    // /v1/graphql answers its errors with HTTP 200: the span says so by the error's code.
    if (facts.errorCode !== undefined) failSpan(context, facts.errorCode);
    return sent;
  });
}

function parseJson(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (jsonTextTooDeep(text)) throw errors.jsonTooDeep('$', MAX_JSON_DEPTH);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw errors.invalidJson('$', (error as Error).message);
  }
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function asServiceError(error: unknown, log: Logger, facts: RequestFacts): ServiceError {
  if (error instanceof ServiceError) return error;
  log.error({ err: error, requestId: facts.requestId }, 'unexpected error at the edge');
  return errors.unexpected('$');
}
