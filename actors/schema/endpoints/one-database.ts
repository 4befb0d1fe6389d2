import { errors } from '../../../src/errors/errors.js';
import { DEFAULT_SOURCE } from '../../../src/metadata/types.js';

/**
 * Hasura's backend names other than PostgreSQL, as they prefix metadata commands
 * (`mssql_track_table`) and `/v2/query` types (`citus_run_sql`).
 */
const OTHER_BACKENDS: readonly string[] = ['citus', 'cockroach', 'mssql', 'bigquery', 'mysql', 'dataconnector'];

/** Refuses a type named for another database engine: the engine serves one PostgreSQL database. */
export function refuseOtherBackend(type: string, path: string): void {
  const end = type.indexOf('_');
  const prefix = type.slice(0, end);
  if (end > 0 && OTHER_BACKENDS.includes(prefix)) throw errors.backendNotSupported(`${path}.type`, prefix);
}

/**
 * Refuses `args.source` naming anything but the one database. Hasura's metadata and
 * `/v2/query` arguments take `source`, defaulting to `"default"`; a value that is not a
 * string is left to the operation's schema to report.
 */
export function refuseOtherSource(args: unknown, path: string): void {
  if (typeof args !== 'object' || args === null || !('source' in args)) return;
  const source = (args as { source: unknown }).source;
  if (typeof source === 'string' && source !== DEFAULT_SOURCE) throw errors.sourceNotSupported(`${path}.args.source`, source);
}
