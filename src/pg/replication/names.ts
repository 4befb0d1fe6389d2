import { createHash } from 'node:crypto';

/**
 * Names of the PostgreSQL objects event capture uses. Both belong to the engine
 * database, not to the subject prefix: the metadata (and so the set of triggers) is one
 * per database, a publication is a database object, and a slot name must be unique on
 * the whole PostgreSQL server, so it carries the database's name.
 */
export const PUBLICATION = 'service_graphql_events';

/** `service_events_<database>`, shortened with a hash to fit NAMEDATALEN (63). */
export function slotName(database: string): string {
  const clean = database.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const name = `service_events_${clean}`;
  if (name.length <= 63 && clean === database) return name;
  const hash = createHash('sha1').update(database).digest('hex').slice(0, 8);
  return `service_events_${clean.slice(0, 63 - 24)}_${hash}`;
}

/** The metadata row lives in the replication stream too, so capture follows trigger changes in WAL order. */
export const METADATA_TABLE = { schema: 'service_catalog', name: 'metadata' } as const;

/**
 * The logical decoding message prefix under which the engine's own mutations emit their
 * session (actors/schema/sql/mutation-plan.ts) and capture reads it back into events.
 */
export const SESSION_MESSAGE_PREFIX = 'service.session';
/** The prefix of the logical decoding message a traced mutation emits with its `traceparent`, so its events' deliveries link to it. */
export const TRACE_MESSAGE_PREFIX = 'service.trace';
