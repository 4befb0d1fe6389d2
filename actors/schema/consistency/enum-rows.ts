import type { Metadata, TableEntry } from '../../../src/metadata/types.js';
import { relationKey, type Catalog, type CatalogRelation } from '../../../src/pg/catalog.js';
import type { Pool, PoolClient } from '../../../src/pg/pool.js';
import { qualified, quoteIdent } from '../../../src/pg/quote.js';
import { EntryCount } from '../../../src/metadata/entry-count.js';
import { enumTableShape, type EnumRow, type EnumRowsRead, type EnumTableRows } from '../models/enum-tables.js';

/**
 * Reads the rows of the metadata's enum tables for the consistency check. Rows are kept per
 * catalog read: the catalog is read again by every metadata change, reload_metadata and
 * run_sql, so new rows show then (Hasura, too, picks up changed rows only on a reload),
 * while a check against the same catalog (another instance's change) asks nothing.
 */
export class EnumRowsReader {
  readonly #kept = new WeakMap<Catalog['relations'], Map<string, EnumRowsRead>>();
  /** The entries marked as enum tables, counted as they come and go: most metadata has none. */
  readonly #enumEntries = new EntryCount<TableEntry>((entry) => entry.is_enum === true);

  async read(metadata: Metadata, catalog: Catalog, db: Pool | PoolClient): Promise<EnumTableRows> {
    let kept = this.#kept.get(catalog.relations);
    if (kept === undefined) this.#kept.set(catalog.relations, (kept = new Map()));
    const rows = new Map<string, EnumRowsRead>();
    const entries = metadata.sources[0]?.tables ?? [];
    if (this.#enumEntries.of(entries) === 0) return rows;
    for (const entry of entries) {
      if (entry.is_enum !== true) continue;
      const key = relationKey(entry.table.schema, entry.table.name);
      const relation = catalog.relations.get(key);
      if (relation === undefined) continue;
      let read = kept.get(key);
      if (read === undefined) {
        const found = await readEnumRows(db, relation);
        if (found === null) continue;
        kept.set(key, (read = found));
      }
      rows.set(key, read);
    }
    return rows;
  }
}

/** An enum table's rows, or null when its columns cannot make one (the check says why). */
export async function readEnumRows(db: Pool | PoolClient, relation: CatalogRelation): Promise<EnumRowsRead | null> {
  const { shape } = enumTableShape(relation);
  if (shape === null) return null;
  const comment = shape.comment === null ? 'null' : `${quoteIdent(shape.comment)}::text`;
  const sql = `select ${quoteIdent(shape.primaryKey)}::text as value, ${comment} as comment from ${qualified(relation.schema, relation.name)}`;
  // Inside a request's transaction a failed read must not abort the transaction.
  const inTransaction = 'release' in db;
  try {
    if (inTransaction) await db.query('savepoint enum_rows');
    const result = await db.query<EnumRow>(sql);
    if (inTransaction) await db.query('release savepoint enum_rows');
    return { rows: result.rows };
  } catch (error) {
    if (inTransaction) await db.query('rollback to savepoint enum_rows');
    return { error: (error as Error).message };
  }
}
