import { withTables } from '../../../src/metadata/edit.js';
import { toQualified } from '../../../src/metadata/names.js';
import type { BoolExp, ColumnList, EventTriggerEntry, Metadata, PermissionEntry, QualifiedName, Relationship, TableConfiguration, TableEntry } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import { buildSourceModel, type SourceModel } from '../models/table-model.js';
import { mapBoolExpColumns, type ColumnVisitor } from './bool-exp-columns.js';
import type { SchemaChanges } from './schema-changes.js';

/**
 * The metadata after SQL renamed tracked tables or columns, as Hasura carries a rename
 * through (its renameTableInCatalog and renameColumnInCatalog): each table entry, the
 * relationships, permissions (columns, presets, filters and checks, also those reaching
 * the table through relationships or `_exists`), custom column names and event trigger
 * columns that named the old name now name the new one; a dropped column's custom name
 * goes. Names resolve against the metadata and catalog from before the SQL.
 */
export function renamedMetadata(metadata: Metadata, oldCatalog: Catalog, changes: SchemaChanges): Metadata {
  const rename = new Renamer(buildSourceModel(metadata, oldCatalog), oldCatalog, changes);
  return withTables(metadata, (tables) => tables.map((entry) => rename.entry(entry)));
}

class Renamer implements ColumnVisitor {
  constructor(readonly model: SourceModel, readonly catalog: Catalog, readonly changes: SchemaChanges) {}

  column(tableKey: string, column: string): string {
    return this.changes.columns.get(tableKey)?.get(column) ?? column;
  }

  table(table: QualifiedName): QualifiedName {
    return this.changes.tables.get(keyOf(table)) ?? table;
  }

  /** A table as a relationship names it, keeping a bare name bare while it stays in `public`. */
  tableRef(ref: QualifiedName | string): QualifiedName | string {
    const table = toQualified(ref);
    const renamed = this.table(table);
    if (renamed === table) return ref;
    return typeof ref === 'string' && renamed.schema === 'public' ? renamed.name : renamed;
  }

  entry(entry: TableEntry): TableEntry {
    const key = keyOf(entry.table);
    const next: TableEntry = { ...entry, table: this.table(entry.table) };
    if (entry.configuration !== undefined) next.configuration = this.configuration(key, entry.configuration);
    if (entry.object_relationships !== undefined) next.object_relationships = entry.object_relationships.map((item) => this.relationship(key, item));
    if (entry.array_relationships !== undefined) next.array_relationships = entry.array_relationships.map((item) => this.relationship(key, item));
    const filter = (expression: BoolExp) => mapBoolExpColumns(this.model, this.catalog, key, expression, this);
    if (entry.select_permissions !== undefined) {
      next.select_permissions = permissions(entry.select_permissions, (p) => ({ ...p, columns: this.columns(key, p.columns), filter: filter(p.filter) }));
    }
    if (entry.insert_permissions !== undefined) {
      next.insert_permissions = permissions(entry.insert_permissions, (p) => ({ ...p, check: filter(p.check), ...this.columnsAndSet(key, p) }));
    }
    if (entry.update_permissions !== undefined) {
      next.update_permissions = permissions(entry.update_permissions, (p) => ({
        ...p, filter: filter(p.filter), ...(p.check == null ? {} : { check: filter(p.check) }), ...this.columnsAndSet(key, p),
      }));
    }
    if (entry.delete_permissions !== undefined) next.delete_permissions = permissions(entry.delete_permissions, (p) => ({ ...p, filter: filter(p.filter) }));
    if (entry.event_triggers !== undefined) next.event_triggers = entry.event_triggers.map((trigger) => this.trigger(key, trigger));
    return next;
  }

  private columns(tableKey: string, columns: ColumnList): ColumnList;
  private columns(tableKey: string, columns: ColumnList | undefined): ColumnList | undefined;
  private columns(tableKey: string, columns: ColumnList | undefined): ColumnList | undefined {
    return columns === undefined || columns === '*' ? columns : columns.map((column) => this.column(tableKey, column));
  }

  private columnsAndSet(tableKey: string, permission: { columns?: ColumnList; set?: Record<string, unknown> }): { columns?: ColumnList; set?: Record<string, unknown> } {
    const out: { columns?: ColumnList; set?: Record<string, unknown> } = {};
    if (permission.columns !== undefined) out.columns = this.columns(tableKey, permission.columns);
    if (permission.set !== undefined) out.set = this.keys(tableKey, permission.set);
    return out;
  }

  private keys<T>(tableKey: string, record: Record<string, T>): Record<string, T> {
    return Object.fromEntries(Object.entries(record).map(([column, value]) => [this.column(tableKey, column), value]));
  }

  /** Custom column names follow a renamed column and go with a dropped one, as in Hasura. */
  private configuration(tableKey: string, configuration: TableConfiguration): TableConfiguration {
    const dropped = this.changes.dropped.get(tableKey);
    const kept = <T>(record: Record<string, T>) => this.keys(tableKey, Object.fromEntries(Object.entries(record).filter(([column]) => dropped?.has(column) !== true)));
    const next: TableConfiguration = { ...configuration };
    if (configuration.custom_column_names !== undefined) next.custom_column_names = kept(configuration.custom_column_names);
    if (configuration.column_config !== undefined) next.column_config = kept(configuration.column_config);
    if (next.custom_column_names !== undefined && Object.keys(next.custom_column_names).length === 0) delete next.custom_column_names;
    if (next.column_config !== undefined && Object.keys(next.column_config).length === 0) delete next.column_config;
    return next;
  }

  private relationship(tableKey: string, relationship: Relationship): Relationship {
    const using = relationship.using;
    if ('manual_configuration' in using) {
      const remote = using.manual_configuration.remote_table;
      const remoteKey = keyOf(toQualified(remote));
      const column_mapping = Object.fromEntries(
        Object.entries(using.manual_configuration.column_mapping).map(([from, to]) => [this.column(tableKey, from), this.column(remoteKey, to)]),
      );
      return { ...relationship, using: { manual_configuration: { ...using.manual_configuration, remote_table: this.tableRef(remote), column_mapping } } };
    }
    const on = using.foreign_key_constraint_on;
    if (typeof on === 'string') return { ...relationship, using: { foreign_key_constraint_on: this.column(tableKey, on) } };
    if (Array.isArray(on)) return { ...relationship, using: { foreign_key_constraint_on: on.map((column) => this.column(tableKey, column)) } };
    const otherKey = keyOf(toQualified(on.table));
    const other: typeof on = { ...on, table: this.tableRef(on.table) };
    if (on.column !== undefined) other.column = this.column(otherKey, on.column);
    if (on.columns !== undefined) other.columns = on.columns.map((column) => this.column(otherKey, column));
    return { ...relationship, using: { foreign_key_constraint_on: other } };
  }

  private trigger(tableKey: string, trigger: EventTriggerEntry): EventTriggerEntry {
    const definition = { ...trigger.definition };
    for (const operation of ['insert', 'update', 'delete'] as const) {
      const spec = definition[operation];
      if (spec === undefined) continue;
      definition[operation] = { ...spec, columns: this.columns(tableKey, spec.columns), ...(spec.payload === undefined ? {} : { payload: this.columns(tableKey, spec.payload) }) };
    }
    return { ...trigger, definition };
  }
}

function permissions<P>(list: PermissionEntry<P>[], change: (permission: P) => P): PermissionEntry<P>[] {
  return list.map((item) => ({ ...item, permission: change(item.permission) }));
}

function keyOf(table: QualifiedName): string {
  return relationKey(table.schema, table.name);
}
