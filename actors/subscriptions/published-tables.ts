import type { Pool } from '../../src/pg/pool.js';
import { relationKey } from '../../src/pg/catalog.js';
import { PUBLICATION } from '../../src/pg/replication/names.js';

/** The tables (relation keys) whose changes logical replication reports: those of the engine's publication. */
export async function publishedTables(db: Pool): Promise<Set<string>> {
  const result = await db.query<{ schema: string; name: string }>('select schemaname as schema, tablename as name from pg_publication_tables where pubname = $1', [PUBLICATION]);
  return new Set(result.rows.map((row) => relationKey(row.schema, row.name)));
}
