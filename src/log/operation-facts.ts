import { createHash } from 'node:crypto';
import { REPLY_META } from '../bus/wire.js';
import { LruCache } from '../cache/lru.js';

/**
 * What running a /v1/graphql request tells its log lines, gathered by the schema actor
 * while it runs (every operation of a batch adds to it) and carried back in the reply's meta.
 */
export interface OperationFacts {
  operations: Array<{ name: string | null; type: string | null }>;
  /** Statement texts sent to PostgreSQL, for query-log: never their values. */
  statements: string[];
  /** Time holding (or waiting for) a database connection. */
  sqlMs: number;
}

export function newOperationFacts(): OperationFacts {
  return { operations: [], statements: [], sqlMs: 0 };
}

/** Query texts' hashes, kept: a client sends the same few texts again and again. */
const hashes = new LruCache<string>(1000);

/** Identifies a query text in logs without writing it out; sha1, as Hasura's query hashes. */
export function queryHash(query: string): string {
  let hash = hashes.get(query);
  if (hash === undefined) {
    hash = createHash('sha1').update(query).digest('hex');
    hashes.set(query, hash);
  }
  return hash;
}

const ERRORS_BODY = Buffer.from('{"errors":');

/**
 * The code of a response's first error. The bodies refusing or failing a whole request are
 * the engine's own `{"errors":[...]}` (errors/bodies.ts), small, so only they are parsed;
 * a data body is never parsed for its log line.
 */
export function errorCodeOf(body: Uint8Array): string | undefined {
  if (body.length < ERRORS_BODY.length || !Buffer.from(body.buffer, body.byteOffset, ERRORS_BODY.length).equals(ERRORS_BODY)) return undefined;
  const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as { errors?: Array<{ extensions?: { code?: unknown } }> };
  const code = parsed.errors?.[0]?.extensions?.code;
  return typeof code === 'string' ? code : undefined;
}

const round = (ms: number): number => Math.round(ms * 100) / 100;

/** The names (or types) of a request's operations, comma-separated for a batch; undefined when none has one (an empty name is none). */
function joined(values: Array<string | null>): string | undefined {
  if (values.length === 1) return values[0] || undefined;
  return values.some((value) => value !== null && value !== '') ? values.map((value) => value ?? '').join(',') : undefined;
}

/**
 * The reply meta of a request's facts: its http-log fields (timings in milliseconds) as one
 * JSON text, which the edge writes into its line without reading it, beside the operation
 * types (for the metrics) and the error code (for the request's span).
 */
export function operationMeta(facts: OperationFacts, times: { authMs: number; planMs: number }, extra: { queryHash?: string; errorCode?: string; userId?: string }): Record<string, string> {
  const operationType = joined(facts.operations.map((operation) => operation.type));
  const fields = {
    operationName: joined(facts.operations.map((operation) => operation.name)),
    operationType,
    queryHash: extra.queryHash,
    errorCode: extra.errorCode,
    userId: extra.userId,
    authMs: round(times.authMs),
    planMs: round(times.planMs),
    sqlMs: round(facts.sqlMs),
  };
  const meta: Record<string, string> = { [REPLY_META.logFields]: JSON.stringify(fields) };
  if (operationType !== undefined) meta[REPLY_META.operationType] = operationType;
  if (extra.errorCode !== undefined) meta[REPLY_META.errorCode] = extra.errorCode;
  return meta;
}
