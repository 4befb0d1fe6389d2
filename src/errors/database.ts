import { errors } from './errors.js';
import type { ServiceError } from './service-error.js';

/**
 * Postgres failures as GraphQL errors (compat-facts 1.3), at `$`, with the PostgreSQL error
 * as their cause. The statement and Postgres' own detail are `internal`, which only the
 * admin role is shown; other roles get the code and, for a bad value (SQLSTATE class 22)
 * or a violated constraint (class 23), Postgres' message, which names the value or the
 * constraint but no SQL.
 */
interface PgErrorLike {
  code?: string;
  message: string;
  detail?: string;
  hint?: string;
  /** Where in the statement's text Postgres' parser stopped; absent when a value was at fault. */
  position?: string;
  /** The inner statement of a function that failed (PL/pgSQL's dynamic SQL). */
  internalQuery?: string;
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

export function databaseError(error: unknown, statement: { sql: string; values: unknown[] }): ServiceError {
  const pgError = error as PgErrorLike;
  const sqlState = typeof pgError.code === 'string' && /^[0-9A-Z]{5}$/.test(pgError.code) ? pgError.code : null;
  const internal = {
    statement: statement.sql,
    prepared: true,
    arguments: statement.values,
    error: { exec_status: 'FatalError', message: pgError.message, status_code: sqlState, description: pgError.detail ?? null, hint: pgError.hint ?? null },
  };
  return graphqlDatabaseError(valueSyntaxError(pgError) ? '22000' : sqlState, pgError.message).withInternal(internal).causedBy(error);
}

/**
 * A syntax error (42601) with no position in the statement and no inner statement was not
 * the statement's: a value's input function refused the value's text (an ltree `lquery`
 * or `ltxtquery`, a `tsquery`), a bad value like those of class 22.
 */
function valueSyntaxError(error: PgErrorLike): boolean {
  return error.code === '42601' && error.position === undefined && error.internalQuery === undefined;
}

function graphqlDatabaseError(sqlState: string | null, message: string): ServiceError {
  if (sqlState === null) return errors.postgresConnection('$');
  if (sqlState === '53300') return errors.postgresMaxConnections('$');
  // The server's statement_timeout, the backstop behind the engine's own deadline.
  if (sqlState === '57014') return errors.timeLimitExceeded('$');
  if (sqlState.startsWith('22')) return errors.dataException('$', message);
  if (sqlState.startsWith('23')) return errors.constraintViolation('$', CONSTRAINT_VIOLATIONS[sqlState] ?? 'Integrity constraint violation', message);
  return errors.databaseQueryFailed('$');
}
