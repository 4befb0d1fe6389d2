import type { CatalogRelation } from '../../../src/pg/catalog.js';
import type { ComputedFieldModel } from '../models/function-model.js';
import type { SourceModel, TableModel } from '../models/table-model.js';

/** What a permission check looks up in the source model: tables, and tables' computed fields. */
export interface ModelLookups {
  tables: Pick<ReadonlyMap<string, TableModel>, 'get'>;
  functions: { computedFields: Pick<ReadonlyMap<string, readonly ComputedFieldModel[]>, 'get'> };
}

interface Kept<R> {
  tableKey: string;
  relations: ReadonlyMap<string, CatalogRelation>;
  tables: [string, TableModel | undefined][];
  computedFields: [string, readonly ComputedFieldModel[] | undefined][];
  result: R;
}

/**
 * Permission checks kept from one metadata version to the next, so that an operation
 * checks the permissions it touched rather than thousands it did not. A check's answer
 * depends on the permission, the catalog's relations and the table models it looked up (a
 * filter crosses relationships into other tables): it is kept with those lookups, and reused
 * while each still finds the same object. Metadata entries and table models keep their
 * identity while unchanged (normalize.ts, table-memo.ts), so any change they could see
 * makes a lookup find another object, and the check runs again.
 */
export class PermissionCheckMemo<R> {
  readonly #kept = new WeakMap<object, Kept<R>>();

  get(permission: object, tableKey: string, model: SourceModel, relations: ReadonlyMap<string, CatalogRelation>, check: (lookups: ModelLookups) => R): R {
    const kept = this.#kept.get(permission);
    if (kept !== undefined && stillHolds(kept, tableKey, model, relations)) return kept.result;
    const tables: Kept<R>['tables'] = [];
    const computedFields: Kept<R>['computedFields'] = [];
    const lookups: ModelLookups = {
      tables: {
        get: (key) => {
          const found = model.tables.get(key);
          tables.push([key, found]);
          return found;
        },
      },
      functions: {
        computedFields: {
          get: (key) => {
            const found = model.functions.computedFields.get(key);
            computedFields.push([key, found]);
            return found;
          },
        },
      },
    };
    const result = check(lookups);
    this.#kept.set(permission, { tableKey, relations, tables, computedFields, result });
    return result;
  }

  /** The keys of the tables (and tables' computed fields) the kept check of `permission` looked up. */
  lookedUp(permission: object): string[] {
    const kept = this.#kept.get(permission);
    return kept === undefined ? [] : [...kept.tables.map(([key]) => key), ...kept.computedFields.map(([key]) => key)];
  }
}

function stillHolds<R>(kept: Kept<R>, tableKey: string, model: SourceModel, relations: ReadonlyMap<string, CatalogRelation>): boolean {
  return kept.tableKey === tableKey
    && kept.relations === relations
    && kept.tables.every(([key, found]) => model.tables.get(key) === found)
    && kept.computedFields.every(([key, found]) => model.functions.computedFields.get(key) === found);
}
