import type { DeletePermission, InsertPermission, Metadata, QualifiedName, Relationship, SelectPermission, TableConfiguration, TableEntry, UpdatePermission } from '../../../src/metadata/types.js';
import { relationKey, type Catalog, type CatalogRelation } from '../../../src/pg/catalog.js';
import { isGraphqlName } from '../../../src/graphql/name.js';
import { columnTypeOf, type ColumnType } from './column-types.js';
import { buildFunctionsModel, type FunctionsModel } from './function-model.js';
import { TableMemo } from './table-memo.js';

/**
 * The tracked tables as the GraphQL layer sees them: metadata joined with the catalog,
 * names resolved (custom names, custom root fields), relationships resolved to column
 * pairs. Built on every metadata change, so it does no GraphQL work: per-role schemas
 * are built from it lazily (target: 500 tables in well under 2 s).
 */
export interface ColumnModel {
  /** The Postgres column name. */
  name: string;
  /** The GraphQL field name (`column_config.custom_name` or the column name). */
  fieldName: string;
  type: ColumnType;
  nullable: boolean;
  description: string | null;
  /** A generated column: never written by inserts or updates. */
  generated: boolean;
}

export interface RelationshipModel {
  name: string;
  kind: 'object' | 'array';
  /** Key (`relationKey`) of the related table. */
  target: string;
  /** Pairs of (column of this table, column of the related table). */
  mapping: ReadonlyArray<readonly [string, string]>;
  /** A manual object relationship may match several rows; only the first is taken. */
  manual: boolean;
  /**
   * For nested inserts: whether the related row is written before this one (this table
   * holds the foreign key) or after it (the related table does).
   */
  insertOrder: 'before' | 'after';
}

export interface RootFieldNames {
  select: string;
  selectByPk: string;
  selectAggregate: string;
  /** `<t>_stream`, under subscription_root only. */
  selectStream: string;
  insert: string;
  insertOne: string;
  update: string;
  updateByPk: string;
  updateMany: string;
  delete: string;
  deleteByPk: string;
}

export interface TableModel {
  key: string;
  table: QualifiedName;
  /** Base of every GraphQL type name of the table (`author`, `other_schema_author`, custom name). */
  typeName: string;
  rootFields: RootFieldNames;
  columns: ColumnModel[];
  columnsByName: Map<string, ColumnModel>;
  primaryKey: ColumnModel[];
  relationships: RelationshipModel[];
  selectPermissions: Map<string, SelectPermission>;
  insertPermissions: Map<string, InsertPermission>;
  updatePermissions: Map<string, UpdatePermission>;
  deletePermissions: Map<string, DeletePermission>;
  /** Unique and primary key constraints: what an upsert's `on_conflict` may name. */
  uniqueConstraints: ReadonlyArray<{ name: string; columns: string[] }>;
  description: string | null;
  /**
   * An ordinary table, whose row changes logical replication can report (the change feed
   * of subscriptions); a view, materialized view, partitioned or foreign table is not.
   */
  ordinaryTable: boolean;
}

export interface SourceModel {
  tables: Map<string, TableModel>;
  /** Tracked functions and computed fields (function-model.ts). */
  functions: FunctionsModel;
}

/** A table's model depends on its entry and the catalog's relations only (resolveRelationship reads other relations' keys). */
const tableModels = new TableMemo<TableModel | null>();

export function buildSourceModel(metadata: Metadata, catalog: Catalog): SourceModel {
  const tables = new Map<string, TableModel>();
  for (const entry of metadata.sources[0]?.tables ?? []) {
    const relation = catalog.relations.get(relationKey(entry.table.schema, entry.table.name));
    if (relation === undefined) continue;
    const model = tableModels.get(entry, catalog.relations, () => tableModel(entry, relation, catalog));
    if (model !== null) tables.set(model.key, model);
  }
  return { tables, functions: buildFunctionsModel(metadata, catalog) };
}

/** The base of a tracked table's GraphQL names: its custom name, else `<name>` or `<schema>_<name>`. */
export function tableTypeName(entry: TableEntry): string {
  return entry.configuration?.custom_name ?? (entry.table.schema === 'public' ? entry.table.name : `${entry.table.schema}_${entry.table.name}`);
}

/** The root field names of a table: the custom ones of its configuration, else the defaults. */
export function rootFieldsOf(configuration: TableConfiguration, typeName: string): RootFieldNames {
  const custom = configuration.custom_root_fields;
  return {
    select: rootFieldName(custom?.select, typeName),
    selectByPk: rootFieldName(custom?.select_by_pk, `${typeName}_by_pk`),
    selectAggregate: rootFieldName(custom?.select_aggregate, `${typeName}_aggregate`),
    selectStream: rootFieldName(custom?.select_stream, `${typeName}_stream`),
    insert: rootFieldName(custom?.insert, `insert_${typeName}`),
    insertOne: rootFieldName(custom?.insert_one, `insert_${typeName}_one`),
    update: rootFieldName(custom?.update, `update_${typeName}`),
    updateByPk: rootFieldName(custom?.update_by_pk, `update_${typeName}_by_pk`),
    updateMany: rootFieldName(custom?.update_many, `update_${typeName}_many`),
    delete: rootFieldName(custom?.delete, `delete_${typeName}`),
    deleteByPk: rootFieldName(custom?.delete_by_pk, `delete_${typeName}_by_pk`),
  };
}

function tableModel(entry: TableEntry, relation: CatalogRelation, catalog: Catalog): TableModel | null {
  const configuration = entry.configuration ?? {};
  const typeName = tableTypeName(entry);
  if (!isGraphqlName(typeName)) return null;

  const columns: ColumnModel[] = [];
  for (const column of relation.columns) {
    const type = columnTypeOf(column);
    const fieldName = configuration.column_config?.[column.name]?.custom_name ?? configuration.custom_column_names?.[column.name] ?? column.name;
    if (type === null || !isGraphqlName(fieldName)) continue;
    const description = configuration.column_config?.[column.name]?.comment ?? column.comment;
    columns.push({ name: column.name, fieldName, type, nullable: column.nullable, description, generated: column.isGenerated });
  }
  const columnsByName = new Map(columns.map((column) => [column.name, column]));
  const primaryKey = relation.primaryKey.map((name) => columnsByName.get(name));

  const relationships: RelationshipModel[] = [];
  for (const [kind, list] of [['object', entry.object_relationships], ['array', entry.array_relationships]] as const) {
    for (const relationship of list ?? []) {
      const resolved = resolveRelationship(kind, relationship, entry.table, relation, catalog);
      if (resolved !== null && isGraphqlName(relationship.name)) relationships.push(resolved);
    }
  }

  return {
    key: relationKey(entry.table.schema, entry.table.name),
    table: entry.table,
    typeName,
    rootFields: rootFieldsOf(configuration, typeName),
    columns,
    columnsByName,
    primaryKey: primaryKey.every((column) => column !== undefined) ? (primaryKey as ColumnModel[]) : [],
    relationships,
    selectPermissions: new Map((entry.select_permissions ?? []).map((item) => [item.role, item.permission])),
    insertPermissions: new Map((entry.insert_permissions ?? []).map((item) => [item.role, item.permission])),
    updatePermissions: new Map((entry.update_permissions ?? []).map((item) => [item.role, item.permission])),
    deletePermissions: new Map((entry.delete_permissions ?? []).map((item) => [item.role, item.permission])),
    uniqueConstraints: relation.uniqueConstraints,
    description: configuration.comment ?? relation.comment,
    ordinaryTable: relation.kind === 'r',
  };
}

function rootFieldName(custom: string | { name?: string } | null | undefined, fallback: string): string {
  const name = typeof custom === 'string' ? custom : custom?.name;
  return name !== undefined && isGraphqlName(name) ? name : fallback;
}

/**
 * Resolves a relationship to column pairs. The metadata was checked for consistency, so
 * a missing key here means a relationship the checker let through; it is left out.
 */
function resolveRelationship(
  kind: 'object' | 'array',
  relationship: Relationship,
  table: QualifiedName,
  relation: CatalogRelation,
  catalog: Catalog,
): RelationshipModel | null {
  const using = relationship.using;
  if ('manual_configuration' in using) {
    const remote = qualifiedTable(using.manual_configuration.remote_table);
    const mapping = Object.entries(using.manual_configuration.column_mapping).map(([from, to]) => [from, to] as const);
    const insertOrder = (using.manual_configuration.insertion_order ?? (kind === 'object' ? 'before_parent' : 'after_parent')) === 'before_parent' ? 'before' : 'after';
    return { name: relationship.name, kind, target: relationKey(remote.schema, remote.name), mapping, manual: true, insertOrder };
  }
  const on = using.foreign_key_constraint_on;
  if (typeof on === 'string' || Array.isArray(on)) {
    const columns = typeof on === 'string' ? [on] : on;
    const fk = relation.foreignKeys.find((key) => sameColumns(key.columns, columns));
    if (fk === undefined) return null;
    const mapping = fk.columns.map((column, index) => [column, fk.refColumns[index]!] as const);
    return { name: relationship.name, kind, target: relationKey(fk.refSchema, fk.refTable), mapping, manual: false, insertOrder: 'before' };
  }
  const other = qualifiedTable(on.table);
  const otherRelation = catalog.relations.get(relationKey(other.schema, other.name));
  const columns = on.columns ?? (on.column === undefined ? [] : [on.column]);
  const fk = otherRelation?.foreignKeys.find(
    (key) => sameColumns(key.columns, columns) && key.refSchema === table.schema && key.refTable === table.name,
  );
  if (fk === undefined) return null;
  const mapping = fk.refColumns.map((column, index) => [column, fk.columns[index]!] as const);
  return { name: relationship.name, kind, target: relationKey(other.schema, other.name), mapping, manual: false, insertOrder: 'after' };
}

/**
 * A table as metadata names it: bare strings mean schema `public`. (The consistency
 * check has the same rule; it imports this module, so this one does not import it.)
 */
export function qualifiedTable(table: QualifiedName | string): QualifiedName {
  return typeof table === 'string' ? { schema: 'public', name: table } : table;
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((column, index) => column === b[index]);
}
