import pg from 'pg';
import { errors } from '../errors/errors.js';
import type { ServiceError } from '../errors/service-error.js';

/**
 * A failure to reach Postgres as the error users get for it (compat-facts 1.3): no
 * SQLSTATE means the connection itself failed (`connection error`, 500); 53300 is "too
 * many clients". Anything else is not a connection problem and is left to the caller.
 */
export function postgresUnavailable(error: unknown, path: string): ServiceError | undefined {
  if (error instanceof pg.DatabaseError) return error.code === '53300' ? errors.postgresMaxConnections(path) : undefined;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|EPIPE)$/.test(code)) return errors.postgresConnection(path);
  if (error instanceof Error && /Connection terminated|connection timeout/i.test(error.message)) return errors.postgresConnection(path);
  return undefined;
}
