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

const round = (ms: number): string => String(Math.round(ms * 100) / 100);

/** The reply meta of a request's facts; timings in milliseconds. */
export function operationMeta(facts: OperationFacts, times: { authMs: number; planMs: number }, extra: { queryHash?: string; errorCode?: string; userId?: string }): Record<string, string> {
  const meta: Record<string, string> = { [REPLY_META.authMs]: round(times.authMs), [REPLY_META.planMs]: round(times.planMs), [REPLY_META.sqlMs]: round(facts.sqlMs) };
  const names = facts.operations.map((operation) => operation.name ?? '');
  if (names.some((name) => name !== '')) meta[REPLY_META.operationName] = names.join(',');
  const types = facts.operations.map((operation) => operation.type ?? '');
  if (types.some((type) => type !== '')) meta[REPLY_META.operationType] = types.join(',');
  if (extra.queryHash !== undefined) meta[REPLY_META.queryHash] = extra.queryHash;
  if (extra.errorCode !== undefined) meta[REPLY_META.errorCode] = extra.errorCode;
  if (extra.userId !== undefined) meta[REPLY_META.userId] = extra.userId;
  return meta;
}

/** The http-log fields of a /v1/graphql reply's meta, as the edge writes them. */
export function operationLogFields(meta: Record<string, string>): Record<string, unknown> {
  const number = (key: string) => (meta[key] === undefined ? undefined : Number(meta[key]));
  return {
    operationName: meta[REPLY_META.operationName],
    operationType: meta[REPLY_META.operationType],
    queryHash: meta[REPLY_META.queryHash],
    errorCode: meta[REPLY_META.errorCode],
    userId: meta[REPLY_META.userId],
    authMs: number(REPLY_META.authMs),
    planMs: number(REPLY_META.planMs),
    sqlMs: number(REPLY_META.sqlMs),
  };
}
