import { readCorsDomains, type CorsDomains } from './cors-domains.js';
import { DEFAULT_LOG_TYPES, LOG_TYPES } from '../log/log-types.js';

/**
 * Every setting the engine reads, each with its CLI flag, its `SERVICE_GRAPHQL_*`
 * variable (Hasura's `HASURA_GRAPHQL_*` names in our vocabulary), its default and the
 * parser that refuses a bad value. `--help` and the README are written from this table.
 */
export class ConfigValueError extends Error {
  override readonly name = 'ConfigValueError';
}

export type Parser<T> = (raw: string) => T;

export interface OptionSpec<T> {
  flag: string;
  env: string;
  help: string;
  parse: Parser<T>;
  default?: T;
  /** Shown in --help instead of the value, for secrets. */
  secret?: boolean;
  /** A flag that takes no value (`--enable-x` means true). */
  boolean?: boolean;
}

const text: Parser<string> = (raw) => {
  if (raw.trim() === '') throw new ConfigValueError('must not be empty');
  return raw;
};

const boolean: Parser<boolean> = (raw) => {
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new ConfigValueError(`expected true or false, got ${JSON.stringify(raw)}`);
};

function integer(min: number, max: number): Parser<number> {
  return (raw) => {
    if (!/^-?[0-9]+$/.test(raw.trim())) throw new ConfigValueError(`expected an integer, got ${JSON.stringify(raw)}`);
    const value = Number(raw.trim());
    if (value < min || value > max) throw new ConfigValueError(`expected an integer from ${min} to ${max}, got ${value}`);
    return value;
  };
}

function oneOf<T extends string>(values: readonly T[]): Parser<T> {
  return (raw) => {
    const value = raw.trim() as T;
    if (!values.includes(value)) throw new ConfigValueError(`expected one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
    return value;
  };
}

function listOf<T extends string>(values: readonly T[]): Parser<T[]> {
  return (raw) => {
    const items = raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
    const unknown = items.filter((item) => !values.includes(item as T));
    if (unknown.length > 0) {
      throw new ConfigValueError(`unknown value(s) ${unknown.join(', ')}; expected a comma-separated list of ${values.join(', ')}`);
    }
    return [...new Set(items as T[])];
  };
}

function url(protocols: readonly string[]): Parser<string> {
  return (raw) => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigValueError(`not a valid URL: ${JSON.stringify(raw)}`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigValueError(`expected a ${protocols.join(' or ')} URL, got ${parsed.protocol}`);
    }
    return raw;
  };
}

const jsonObject: Parser<Record<string, unknown>> = (raw) => {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new ConfigValueError(`not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigValueError('expected a JSON object');
  return value as Record<string, unknown>;
};

/** A NATS subject token: the prefix must not add wildcards or levels of its own. */
const subjectToken: Parser<string> = (raw) => {
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new ConfigValueError('expected letters, digits, "_" or "-" only (one NATS subject token)');
  return raw;
};

const corsDomains: Parser<CorsDomains> = (raw) => {
  const read = readCorsDomains(raw);
  if ('problem' in read) throw new ConfigValueError(read.problem);
  return read.domains;
};

export const API_NAMES = ['metadata', 'graphql', 'config', 'pgdump', 'developer', 'metrics'] as const;
export type ApiName = (typeof API_NAMES)[number];

export const ACTOR_NAMES = ['edge', 'schema', 'auth', 'triggers', 'remote-schema', 'subscriptions'] as const;
export type ActorName = (typeof ACTOR_NAMES)[number];

/** OTEL_TRACES_SAMPLER's values (the OpenTelemetry SDK environment specification). */
export const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

const ratio: Parser<number> = (raw) => {
  const value = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) throw new ConfigValueError(`expected a number from 0 to 1, got ${JSON.stringify(raw)}`);
  return value;
};

export const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

export const OPTIONS = {
  serverHost: { flag: '--server-host', env: 'SERVICE_GRAPHQL_SERVER_HOST', parse: text, default: '0.0.0.0', help: 'Interface the HTTP server binds.' },
  serverPort: { flag: '--server-port', env: 'SERVICE_GRAPHQL_SERVER_PORT', parse: integer(0, 65535), default: 8080, help: 'HTTP port (0 picks a free one).' },
  databaseUrl: { flag: '--database-url', env: 'SERVICE_GRAPHQL_DATABASE_URL', parse: url(['postgres:', 'postgresql:']), help: 'PostgreSQL to serve and to keep metadata in (schema service_catalog). Unset: an embedded PostgreSQL with data in <data-dir>/pg.' },
  natsUrl: { flag: '--nats-url', env: 'SERVICE_GRAPHQL_NATS_URL', parse: text, default: 'nats://127.0.0.1:4222', help: 'NATS server(s), comma-separated. If it is one loopback address where nothing answers and nats-server is on PATH, the engine starts one there with JetStream and data in <data-dir>/nats.' },
  natsPrefix: { flag: '--nats-prefix', env: 'SERVICE_GRAPHQL_NATS_PREFIX', parse: subjectToken, default: 'svc', help: 'First token of every subject, so that several clusters can share one NATS.' },
  dataDir: { flag: '--data-dir', env: 'SERVICE_GRAPHQL_DATA_DIR', parse: text, default: '.data', help: 'Where the embedded PostgreSQL and NATS keep their data.' },
  embeddedPgPort: { flag: '--embedded-pg-port', env: 'SERVICE_GRAPHQL_EMBEDDED_PG_PORT', parse: integer(1, 65535), default: 5439, help: 'Port of the embedded PostgreSQL (only without a database URL).' },
  pgConnections: { flag: '--pg-connections', env: 'SERVICE_GRAPHQL_PG_CONNECTIONS', parse: integer(1, 1000), default: 20, help: 'Size of each actor instance\'s PostgreSQL pool.' },
  statementTimeout: { flag: '--statement-timeout', env: 'SERVICE_GRAPHQL_STATEMENT_TIMEOUT', parse: integer(1, 86_400), default: 60, help: 'Seconds any SQL statement of a GraphQL request or subscription may run before it is cancelled (API limits\' time_limit may set less per role). run_sql is not bounded.' },
  pgJit: { flag: '--pg-jit', env: 'SERVICE_GRAPHQL_PG_JIT', parse: boolean, default: false, boolean: true, help: 'Let PostgreSQL JIT-compile the engine\'s statements. Off: a large generated statement can spend minutes compiling, deaf to cancellation.' },
  catalogChangeLog: { flag: '--catalog-change-log', env: 'SERVICE_GRAPHQL_CATALOG_CHANGE_LOG', parse: boolean, default: true, help: 'Install an event trigger (service_catalog_ddl; needs a superuser) noting every DDL transaction, so that a metadata operation learns whether the catalog changed from a small table instead of a scan of the system catalogs. False, or a role that may not install it: the scan.' },
  pgRoleShare: { flag: '--pg-role-share', env: 'SERVICE_GRAPHQL_PG_ROLE_SHARE', parse: integer(1, 100), default: 75, help: 'Percent of the pool (at least one connection) that the GraphQL requests of one role may hold at once; the rest wait for the role\'s own connections.' },
  trustProxyHeaders: { flag: '--trust-proxy-headers', env: 'SERVICE_GRAPHQL_TRUST_PROXY_HEADERS', parse: boolean, default: false, boolean: true, help: 'Take a client\'s IP from x-real-ip or x-forwarded-for (rate limits by IP), as Hasura does. Only behind a proxy that sets them and drops the ones clients send; off: the socket\'s address.' },
  pgSessionShare: { flag: '--pg-session-share', env: 'SERVICE_GRAPHQL_PG_SESSION_SHARE', parse: integer(1, 100), default: 50, help: 'Percent of the pool (at least one connection) that the GraphQL requests of one session (role and session variables) may hold at once.' },
  adminSecret: { flag: '--admin-secret', env: 'SERVICE_GRAPHQL_ADMIN_SECRET', parse: text, secret: true, help: 'Secret for X-Service-Admin-Secret. Unset: every request is admin (development mode).' },
  jwtSecret: { flag: '--jwt-secret', env: 'SERVICE_GRAPHQL_JWT_SECRET', parse: jsonObject, secret: true, help: 'JWT configuration, a JSON object (type+key or jwk_url, claims_namespace, ...). Needs an admin secret.' },
  authHook: { flag: '--auth-hook', env: 'SERVICE_GRAPHQL_AUTH_HOOK', parse: url(['http:', 'https:']), help: 'Authentication webhook URL. Needs an admin secret.' },
  authHookMode: { flag: '--auth-hook-mode', env: 'SERVICE_GRAPHQL_AUTH_HOOK_MODE', parse: oneOf(['GET', 'POST'] as const), default: 'GET', help: 'How the authentication webhook is called.' },
  unauthorizedRole: { flag: '--unauthorized-role', env: 'SERVICE_GRAPHQL_UNAUTHORIZED_ROLE', parse: text, help: 'Role of requests that carry no credentials.' },
  enabledApis: { flag: '--enabled-apis', env: 'SERVICE_GRAPHQL_ENABLED_APIS', parse: listOf(API_NAMES), default: ['metadata', 'graphql', 'config'] as ApiName[], help: `Comma-separated APIs to serve, from ${API_NAMES.join(', ')}.` },
  enabledLogTypes: { flag: '--enabled-log-types', env: 'SERVICE_GRAPHQL_ENABLED_LOG_TYPES', parse: listOf(LOG_TYPES), default: DEFAULT_LOG_TYPES, help: `Comma-separated log types to write, from ${LOG_TYPES.join(', ')} (query-log: the SQL of each GraphQL operation, for debugging). Lines of other types are always written.` },
  metricsSecret: { flag: '--metrics-secret', env: 'SERVICE_GRAPHQL_METRICS_SECRET', parse: text, secret: true, help: 'Bearer token /v1/metrics requires (Authorization: Bearer <secret>) when the metrics API is enabled. Unset: the metrics are open to anyone who reaches the port.' },
  enableConsole: { flag: '--enable-console', env: 'SERVICE_GRAPHQL_ENABLE_CONSOLE', parse: boolean, boolean: true, help: 'Serve the console (a web UI built into the engine) at /console, and redirect / to it. Unset: on in development mode (no admin secret), off otherwise.' },
  enableRemoteSchemaPermissions: { flag: '--enable-remote-schema-permissions', env: 'SERVICE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS', parse: boolean, default: false, boolean: true, help: 'Enforce per-role remote schema permissions.' },
  enableAllowlist: { flag: '--enable-allowlist', env: 'SERVICE_GRAPHQL_ENABLE_ALLOWLIST', parse: boolean, default: false, boolean: true, help: 'Serve a non-admin role only the operations of the query collections in the allowlist (scoped globally or to its role).' },
  stringifyNumericTypes: { flag: '--stringify-numeric-types', env: 'SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES', parse: boolean, default: false, boolean: true, help: 'Answer bigint, numeric and double precision values (columns, aggregates of them, computed fields) as JSON strings, so that clients parsing JSON numbers as doubles lose no digits.' },
  inferFunctionPermissions: { flag: '--infer-function-permissions', env: 'SERVICE_GRAPHQL_INFER_FUNCTION_PERMISSIONS', parse: boolean, default: true, help: 'Let a role query a tracked function whenever it may read the function\'s return table; false: only with create_function_permission.' },
  liveQueriesBatchSize: { flag: '--live-queries-multiplexed-batch-size', env: 'SERVICE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE', parse: integer(1, 100_000), default: 100, help: 'Cohorts of live queries fetched by one SQL statement.' },
  liveQueriesRefetchDelay: { flag: '--live-queries-multiplexed-refetch-delay', env: 'SERVICE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_DELAY', parse: integer(1, 3600), default: 1, help: 'Seconds between two fetches of a live query that is polled (what the change feed cannot see, or all of them without it).' },
  streamingQueriesBatchSize: { flag: '--streaming-queries-multiplexed-batch-size', env: 'SERVICE_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_BATCH_SIZE', parse: integer(1, 100_000), default: 100, help: 'Cohorts of streaming subscriptions fetched by one SQL statement.' },
  streamingQueriesRefetchDelay: { flag: '--streaming-queries-multiplexed-refetch-delay', env: 'SERVICE_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_REFETCH_DELAY', parse: integer(1, 3600), default: 1, help: 'Seconds between two fetches of a streaming subscription that is polled.' },
  liveQueriesChangeFeed: { flag: '--live-queries-change-feed', env: 'SERVICE_GRAPHQL_LIVE_QUERIES_CHANGE_FEED', parse: boolean, default: true, help: 'Fetch a subscription again when a table it reads changes (logical replication, wal_level=logical), polling only what the feed cannot see; false: poll every subscription at its refetch delay, as Hasura does.' },
  liveQueriesCoalesceMs: { flag: '--live-queries-change-coalesce-ms', env: 'SERVICE_GRAPHQL_LIVE_QUERIES_CHANGE_COALESCE_MS', parse: integer(0, 60_000), default: 5, help: 'After a change, how long a subscription waits for more before it is fetched again: at most one fetch per poller per window.' },
  websocketKeepalive: { flag: '--websocket-keepalive', env: 'SERVICE_GRAPHQL_WEBSOCKET_KEEPALIVE', parse: integer(1, 3600), default: 5, help: 'Seconds between keep-alive messages on a WebSocket (`ka`, or `ping` in graphql-transport-ws).' },
  websocketConnectionInitTimeout: { flag: '--websocket-connection-init-timeout', env: 'SERVICE_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT', parse: integer(1, 3600), default: 3, help: 'Seconds a graphql-transport-ws client has to send connection_init (close 4408 after).' },
  websocketMaxSubscriptions: { flag: '--websocket-max-subscriptions', env: 'SERVICE_GRAPHQL_WEBSOCKET_MAX_SUBSCRIPTIONS', parse: integer(1, 1_000_000), default: 100, help: 'Subscriptions one WebSocket may hold at once; one more is refused.' },
  websocketMaxBufferedBytes: { flag: '--websocket-max-buffered-bytes', env: 'SERVICE_GRAPHQL_WEBSOCKET_MAX_BUFFERED_BYTES', parse: integer(64 * 1024, 1024 * 1024 * 1024), default: 16 * 1024 * 1024, help: 'Bytes a WebSocket may have waiting to be sent; a client that reads slower than that is disconnected.' },
  corsDomain: { flag: '--cors-domain', env: 'SERVICE_GRAPHQL_CORS_DOMAIN', parse: corsDomains, default: '*' as CorsDomains, help: 'Origins allowed to call the engine from a browser, comma-separated: `*` (any), or scheme://host[:port] where the host may start with `*.` (one subdomain) and the port may be `*`. A request or WebSocket from another origin is refused (403).' },
  disableCors: { flag: '--disable-cors', env: 'SERVICE_GRAPHQL_DISABLE_CORS', parse: boolean, default: false, boolean: true, help: 'Send no CORS headers and check no Origin (a proxy in front does it); WebSockets then ignore the Cookie header unless --ws-read-cookie.' },
  wsReadCookie: { flag: '--ws-read-cookie', env: 'SERVICE_GRAPHQL_WS_READ_COOKIE', parse: boolean, default: false, boolean: true, help: 'With --disable-cors, still pass the Cookie header of a WebSocket handshake to authentication.' },
  maxRequestBodyBytes: { flag: '--max-request-body-bytes', env: 'SERVICE_GRAPHQL_MAX_REQUEST_BODY_BYTES', parse: integer(1024, 64 * 1024 * 1024), default: 1024 * 1024, help: 'Largest request body accepted (413 beyond). Capped by NATS max_payload less 20 KiB.' },
  busTimeoutMs: { flag: '--bus-timeout-ms', env: 'SERVICE_GRAPHQL_BUS_TIMEOUT_MS', parse: integer(100, 600_000), default: 60_000, help: 'How long the edge waits for an actor to answer before 503.' },
  busLocalDelivery: { flag: '--bus-local-delivery', env: 'SERVICE_GRAPHQL_BUS_LOCAL_DELIVERY', parse: boolean, default: true, help: 'Answer requests for actors this process runs in-process, skipping the NATS round trip (requests for other actors, broadcasts and monitoring always use NATS).' },
  otelExporterOtlpEndpoint: { flag: '--otel-exporter-otlp-endpoint', env: 'SERVICE_GRAPHQL_OTEL_EXPORTER_OTLP_ENDPOINT', parse: text, help: 'OTLP/HTTP collector base URL (traces go to <url>/v1/traces); setting it or the traces endpoint turns tracing on. Falls back to OTEL_EXPORTER_OTLP_ENDPOINT.' },
  otelExporterOtlpTracesEndpoint: { flag: '--otel-exporter-otlp-traces-endpoint', env: 'SERVICE_GRAPHQL_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', parse: text, help: 'OTLP/HTTP traces URL, used as it is. Falls back to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT.' },
  otelServiceName: { flag: '--otel-service-name', env: 'SERVICE_GRAPHQL_OTEL_SERVICE_NAME', parse: text, help: 'service.name of exported spans. Falls back to OTEL_SERVICE_NAME, then service-graphql.' },
  otelTracesSampler: { flag: '--otel-traces-sampler', env: 'SERVICE_GRAPHQL_OTEL_TRACES_SAMPLER', parse: oneOf(TRACES_SAMPLERS), help: `Which requests are traced: ${TRACES_SAMPLERS.join(', ')}. Falls back to OTEL_TRACES_SAMPLER, then parentbased_always_on.` },
  otelTracesSamplerArg: { flag: '--otel-traces-sampler-arg', env: 'SERVICE_GRAPHQL_OTEL_TRACES_SAMPLER_ARG', parse: ratio, help: 'The traced share (0 to 1) for the traceidratio samplers. Falls back to OTEL_TRACES_SAMPLER_ARG, then 1.' },
  heartbeatMs: { flag: '--heartbeat-ms', env: 'SERVICE_GRAPHQL_HEARTBEAT_MS', parse: integer(100, 600_000), default: 5_000, help: 'Interval of every actor instance\'s heartbeat on <prefix>.monitor.heartbeat.*.' },
  eventsHttpPoolSize: { flag: '--events-http-pool-size', env: 'SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE', parse: integer(1, 10_000), default: 100, help: 'Event trigger webhook calls in flight at once, per engine instance.' },
  eventsClusterMaxInFlight: { flag: '--events-cluster-max-in-flight', env: 'SERVICE_GRAPHQL_EVENTS_CLUSTER_MAX_IN_FLIGHT', parse: integer(0, 1_000_000), default: 0, help: 'Event deliveries in flight (or waiting for a retry) across the whole cluster: the JetStream consumer\'s max_ack_pending. Set, every event is stored as its own message (no batches: max_ack_pending counts messages). 0: no cluster-wide cap.' },
  eventsStreamReplicas: { flag: '--events-stream-replicas', env: 'SERVICE_GRAPHQL_EVENTS_STREAM_REPLICAS', parse: integer(1, 5), default: 1, help: 'JetStream replicas of the event log, invocation log and lease bucket.' },
  actors: { flag: '--actors', env: 'SERVICE_GRAPHQL_ACTORS', parse: listOf(ACTOR_NAMES), default: [...ACTOR_NAMES] as ActorName[], help: `Actors this process runs, from ${ACTOR_NAMES.join(', ')}.` },
  monitorOnce: { flag: '--once', env: 'SERVICE_GRAPHQL_MONITOR_ONCE', parse: boolean, default: false, boolean: true, help: 'monitor: print the cluster once and exit.' },
  logLevel: { flag: '--log-level', env: 'SERVICE_GRAPHQL_LOG_LEVEL', parse: oneOf(LOG_LEVELS), default: 'info', help: 'pino log level.' },
} as const;

export type OptionName = keyof typeof OPTIONS;
