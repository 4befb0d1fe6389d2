import { displayName } from '../../../src/metadata/names.js';
import type { BoolExp, Metadata, QualifiedName } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import { buildSourceModel } from '../models/table-model.js';
import { mapBoolExpColumns } from './bool-exp-columns.js';

const KINDS = ['select', 'insert', 'update', 'delete'] as const;

/**
 * The objects that depend on the type of a column (Hasura's DROnType dependencies):
 * permissions whose filter or check compares it, on its table or through a relationship
 * (or its aggregate), a table computed field or `_exists`. Each is named as Hasura's
 * v2.0 reports it, `permission author.user.select`, by table (as the metadata lists
 * them), then select, insert, update and delete (the order of Hasura's own test).
 */
export function typeDependents(metadata: Metadata, catalog: Catalog, tableKey: string, column: string): string[] {
  const model = buildSourceModel(metadata, catalog);
  const found = new Set<string>();
  const source = metadata.sources[0];
  for (const entry of source?.tables ?? []) {
    const key = relationKey(entry.table.schema, entry.table.name);
    for (const kind of KINDS) {
      for (const item of entry[`${kind}_permissions`] ?? []) {
        const permission = item.permission as { filter?: BoolExp; check?: BoolExp | null };
        let names = false;
        const visitor = {
          column: (at: string, name: string) => ((names ||= at === tableKey && name === column), name),
          table: (table: QualifiedName) => table,
        };
        for (const expression of [permission.filter, permission.check]) {
          if (expression != null) mapBoolExpColumns(model, catalog, key, expression, visitor);
        }
        if (names) found.add(`permission ${displayName(entry.table)}.${item.role}.${kind}`);
      }
    }
  }
  return [...found];
}
