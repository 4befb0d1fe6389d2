import type { Pool } from '../../src/pg/pool.js';
import { relationKey } from '../../src/pg/catalog.js';
import { publicationMembers } from '../../src/pg/replication/publication.js';

/** The tables (relation keys) whose changes logical replication reports: those of the engine's publication. */
export async function publishedTables(db: Pool): Promise<Set<string>> {
  return new Set((await publicationMembers(db)).map((row) => relationKey(row.schema, row.name)));
}
