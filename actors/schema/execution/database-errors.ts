import type { GraphqlErrorEntry } from './response-errors.js';

/**
 * Postgres failures as GraphQL errors (compat-facts 1.3). Only the admin role sees the
 * statement and Postgres' own detail (`internal`); other roles get the code and, for a
 * bad value (SQLSTATE class 22) or a violated constraint (class 23), Postgres' message,
 * which names the value or the constraint but no SQL.
 */
interface PgErrorLike {
  code?: string;
  message: string;
  detail?: string;
  hint?: string;
}

/** Hasura's prefixes of integrity constraint violations (SQLSTATE class 23), written by mutations. */
const CONSTRAINT_VIOLATIONS: Record<string, string> = {
  '23001': 'Foreign key violation',
  '23502': 'Not-NULL violation',
  '23503': 'Foreign key violation',
  '23505': 'Uniqueness violation',
  '23514': 'Check constraint violation',
  '23P01': 'Exclusion violation',
};

export function databaseError(error: unknown, showInternal: boolean, statement: { sql: string; values: unknown[] }): GraphqlErrorEntry {
  const pgError = error as PgErrorLike;
  const sqlState = typeof pgError.code === 'string' && /^[0-9A-Z]{5}$/.test(pgError.code) ? pgError.code : null;
  const internal = showInternal
    ? {
        statement: statement.sql,
        prepared: true,
        arguments: statement.values,
        error: { exec_status: 'FatalError', message: pgError.message, status_code: sqlState, description: pgError.detail ?? null, hint: pgError.hint ?? null },
      }
    : undefined;
  const entry = (message: string, code: string): GraphqlErrorEntry => ({ message, path: '$', code, ...(internal === undefined ? {} : { internal }) });
  if (sqlState === null) return entry('connection error', 'postgres-error');
  if (sqlState === '53300') return entry('max connections reached on postgres', 'postgres-max-connections-error');
  if (sqlState.startsWith('22')) return entry(pgError.message, 'data-exception');
  if (sqlState.startsWith('23')) return entry(`${CONSTRAINT_VIOLATIONS[sqlState] ?? 'Integrity constraint violation'}. ${pgError.message}`, 'constraint-violation');
  return entry('database query error', 'postgres-error');
}
