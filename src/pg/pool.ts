import pg from 'pg';

/**
 * Result JSON stays text: Postgres builds the response JSON and it flows to the client
 * as bytes (ARCHITECTURE decision 4), so json/jsonb must not be parsed by `pg`.
 */
const JSON_OID = 114;
const JSONB_OID = 3802;
const keepText = (value: string): string => value;

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === JSON_OID || oid === JSONB_OID) return keepText;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export interface PoolOptions {
  max: number;
  applicationName: string;
  /** The server's own bound on every statement (a backstop: the engine cancels sooner, engine-side). */
  statementTimeoutMs?: number;
  /** PostgreSQL's JIT; off unless asked, since it can compile one generated statement for minutes, deaf to cancel. */
  jit?: boolean;
  /**
   * node-postgres' pipelining: a query is sent at once, not after the previous one's answer.
   * What a caller awaits in turn runs as before; queries it sends together share a round trip.
   */
  pipeline?: boolean;
}

export function createPool(connectionString: string, options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max,
    types,
    application_name: options.applicationName,
    ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
    // Setting `options` replaces PGOPTIONS, which operators use for their own settings: keep theirs.
    ...(options.jit === true ? {} : { options: [process.env.PGOPTIONS, '-c jit=off'].filter((part) => part !== undefined && part !== '').join(' ') }),
    ...(options.pipeline === true ? { pipeline: true } : {}),
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its connection (Postgres restart) must not crash the process;
  // the pool drops it and the next query opens a new one.
  pool.on('error', () => undefined);
  return pool;
}

export type { Pool, PoolClient } from 'pg';
