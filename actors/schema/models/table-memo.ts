import type { TableEntry } from '../../../src/metadata/types.js';
import type { CatalogRelation } from '../../../src/pg/catalog.js';

/**
 * A value computed from one tracked table's entry and the catalog's relations alone, kept
 * while both are the same objects. Metadata entries are immutable and keep their identity
 * across versions when an operation leaves them alone (normalize.ts), and the catalog is
 * reused while the database's catalogs are unchanged (catalog-cache.ts): so a metadata
 * operation recomputes the tables it touched, not all of them.
 */
export class TableMemo<T> {
  readonly #kept = new WeakMap<TableEntry, { relations: ReadonlyMap<string, CatalogRelation>; variant: string; value: T }>();

  /** `variant`: whatever else the value depends on, as text (the enums a table's columns reference). */
  get(entry: TableEntry, relations: ReadonlyMap<string, CatalogRelation>, compute: () => T, variant = ''): T {
    const kept = this.#kept.get(entry);
    if (kept !== undefined && kept.relations === relations && kept.variant === variant) return kept.value;
    const value = compute();
    this.#kept.set(entry, { relations, variant, value });
    return value;
  }
}
