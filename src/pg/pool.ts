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

export function createPool(connectionString: string, options: { max: number; applicationName: string }): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max,
    types,
    application_name: options.applicationName,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its connection (Postgres restart) must not crash the process;
  // the pool drops it and the next query opens a new one.
  pool.on('error', () => undefined);
  return pool;
}

export type { Pool, PoolClient } from 'pg';
