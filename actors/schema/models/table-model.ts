import type { DeletePermission, InsertPermission, Metadata, QualifiedName, Relationship, SelectPermission, TableConfiguration, TableEntry, UpdatePermission } from '../../../src/metadata/types.js';
import { relationKey, type Catalog, type CatalogRelation } from '../../../src/pg/catalog.js';
import { isGraphqlName } from '../../../src/graphql/name.js';
import { customColumnName } from '../../../src/metadata/names.js';
import { columnTypeOf, enumColumnType, type ColumnType, type EnumReference } from './column-types.js';
import { enumReference, NO_ENUM_ROWS, type EnumTableRows } from './enum-tables.js';
import { inheritedRolesOf, inheritedPermission, selectPermissionParts, type InheritedRoles } from './inherited-roles.js';
import { buildFunctionsModel, type FunctionsModel } from './function-model.js';
import { TableMemo } from './table-memo.js';
import { TableModels } from './table-models.js';
import { changedSpan, keptIndex, type ChangedSpan } from '../../../src/metadata/changed-span.js';

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
  /**
   * The select permissions each inherited role without one of its own reads the table
   * through (inherited-roles.ts); its write permissions, when its parents agree, are in
   * the maps above like any role's.
   */
  inheritedSelect: Map<string, SelectPermission[]>;
  /** Unique and primary key constraints: what an upsert's `on_conflict` may name. */
  uniqueConstraints: ReadonlyArray<{ name: string; columns: string[] }>;
  description: string | null;
  /**
   * An ordinary table, whose row changes logical replication can report (the change feed
   * of subscriptions); a view, materialized view, partitioned or foreign table is not.
   */
  ordinaryTable: boolean;
  /** What Postgres lets be written: all of it for a table; for a view, as it is updatable (Hasura offers no mutation otherwise). */
  writable: { insert: boolean; update: boolean; delete: boolean };
}

export interface SourceModel {
  tables: TableModels<TableModel>;
  /** Tracked functions and computed fields (function-model.ts). */
  functions: FunctionsModel;
  /** How many tables give each role a permission (inherited write permissions included). */
  roleTables: ReadonlyMap<string, number>;
  /** How many tables give each role a `backend_only` write permission. */
  backendOnlyRoleTables: ReadonlyMap<string, number>;
}

/**
 * A table's base model depends on its entry, the catalog's relations (resolveRelationship
 * reads other relations' keys) and the enum tables its columns reference; inherited roles'
 * permissions are added to a copy per build.
 */
const tableModels = new TableMemo<TableModel | null>();

/**
 * The last model built without enum tables' rows and what it was built from. Every metadata
 * operation builds the model several times (the consistency check, the state served) from
 * lists of thousands of entries of which it changed one or two: the next build takes the
 * models of the entries left in place from here rather than looking each up again.
 */
interface LastBuild {
  entries: readonly TableEntry[];
  /** The catalog's parts, which stay the same objects while the database's catalogs are unchanged (catalog-cache.ts). */
  relations: Catalog['relations'];
  catalogFunctions: Catalog['functions'];
  /** The inherited roles and the source's functions, as JSON: what else every table's model depends on. */
  roles: string;
  functions: string;
  /** The model of each entry's table, null for a table the catalog lacks or the model leaves out. */
  models: readonly (TableModel | null)[];
  /** How many of the entries have computed fields, counted as entries come and go. */
  computedFieldEntries: number;
  model: SourceModel;
}

let lastBuild: LastBuild | null = null;

/** `enumRows`: the rows of the enum tables (enum-tables.ts); without them enum tables are plain tables. */
export function buildSourceModel(metadata: Metadata, catalog: Catalog, enumRows: EnumTableRows = NO_ENUM_ROWS): SourceModel {
  const source = metadata.sources[0];
  const entries = source?.tables ?? [];
  const roles = JSON.stringify(metadata.inherited_roles ?? []);
  const functions = JSON.stringify(source?.functions ?? []);
  // With enum tables' rows a table's model depends on the enums of the tables it references: built whole.
  const last = enumRows.size === 0 && lastBuild !== null && lastBuild.relations === catalog.relations && lastBuild.catalogFunctions === catalog.functions && lastBuild.roles === roles ? lastBuild : null;
  // Let go while building: a failure half way must not leave a wrong build behind.
  lastBuild = null;
  const span = last === null ? null : changedSpan(last.entries, entries);
  if (last !== null && span !== null && span.start === span.afterEnd && span.start === span.beforeEnd && last.functions === functions) {
    lastBuild = { ...last, entries };
    return last.model;
  }
  const enums = enumReferences(metadata, catalog, enumRows);
  const inheritedRoles = inheritedRolesOf(metadata);
  let models: (TableModel | null)[];
  let tables: TableModels<TableModel>;
  if (last === null) {
    models = entries.map((entry) => entryModel(entry, catalog, enums, inheritedRoles));
    tables = TableModels.of(models);
  } else {
    // The head and the tail are the last build's; only the span is looked at.
    const added: (TableModel | null)[] = [];
    for (let index = span!.start; index < span!.afterEnd; index++) {
      const kept = keptIndex(span!, last.entries, entries, index);
      added.push(kept >= 0 ? last.models[kept]! : entryModel(entries[index]!, catalog, enums, inheritedRoles));
    }
    models = last.models.slice(0, span!.start).concat(added, last.models.slice(span!.beforeEnd));
    tables = last.model.tables.followedBy(models, last.models.slice(span!.start, span!.beforeEnd), added);
  }
  const computedFieldEntries = last === null ? entries.filter(hasComputedFields).length : last.computedFieldEntries + countIn(entries, span!.start, span!.afterEnd) - countIn(last.entries, span!.start, span!.beforeEnd);
  const reuseFunctions = last !== null && last.functions === functions && functionsUnaffected(span!, last, entries, computedFieldEntries);
  const roleTables = new Map(last?.model.roleTables);
  const backendOnlyRoleTables = new Map(last?.model.backendOnlyRoleTables);
  const count = (model: TableModel | null, by: 1 | -1) => {
    if (model === null) return;
    const roles = rolesOf(model);
    for (const role of roles.permitted) addCount(roleTables, role, by);
    for (const role of roles.backendOnly) addCount(backendOnlyRoleTables, role, by);
  };
  if (last === null) models.forEach((model) => count(model, 1));
  else {
    for (let index = span!.start; index < span!.beforeEnd; index++) count(last.models[index]!, -1);
    for (let index = span!.start; index < span!.afterEnd; index++) count(models[index]!, 1);
  }
  const model: SourceModel = { tables, functions: reuseFunctions ? last.model.functions : buildFunctionsModel(metadata, catalog), roleTables, backendOnlyRoleTables };
  if (enumRows.size === 0) lastBuild = { entries, relations: catalog.relations, catalogFunctions: catalog.functions, roles, functions, models, computedFieldEntries, model };
  return model;
}

/** The roles a table model gives a permission, and a `backend_only` write permission, worked out once per model. */
const modelRoles = new WeakMap<TableModel, { permitted: string[]; backendOnly: string[] }>();

function rolesOf(model: TableModel): { permitted: string[]; backendOnly: string[] } {
  let roles = modelRoles.get(model);
  if (roles !== undefined) return roles;
  const permitted = new Set<string>();
  const backendOnly = new Set<string>();
  for (const permissions of [model.selectPermissions, model.insertPermissions, model.updatePermissions, model.deletePermissions]) for (const role of permissions.keys()) permitted.add(role);
  for (const permissions of [model.insertPermissions, model.updatePermissions, model.deletePermissions]) {
    for (const [role, permission] of permissions) if (permission.backend_only === true) backendOnly.add(role);
  }
  roles = { permitted: [...permitted], backendOnly: [...backendOnly] };
  modelRoles.set(model, roles);
  return roles;
}

function addCount(counts: Map<string, number>, role: string, by: 1 | -1): void {
  const count = (counts.get(role) ?? 0) + by;
  if (count === 0) counts.delete(role);
  else counts.set(role, count);
}

function entryModel(entry: TableEntry, catalog: Catalog, enums: Map<string, { column: string; reference: EnumReference }>, inheritedRoles: InheritedRoles): TableModel | null {
  const relation = catalog.relations.get(relationKey(entry.table.schema, entry.table.name));
  if (relation === undefined) return null;
  const model = tableModels.get(entry, catalog.relations, () => tableModel(entry, relation, catalog, enums), enumsReferencedBy(relation, enums));
  return model === null ? null : withInheritedRoles(model, inheritedRoles);
}

/**
 * Whether the functions model of the last build holds for `entries`: the changed entries
 * have no computed fields, and the tracked tables (which functions and computed fields may
 * return, and whose tracking decides whether those on other entries pass) are the same, or
 * neither list has a function or computed field for them to matter to.
 */
function functionsUnaffected(span: ChangedSpan, last: LastBuild, entries: readonly TableEntry[], computedFieldEntries: number): boolean {
  const before = last.entries.slice(span.start, span.beforeEnd);
  const after = entries.slice(span.start, span.afterEnd);
  if ([...before, ...after].some(hasComputedFields)) return false;
  if (last.functions === '[]' && last.computedFieldEntries === 0 && computedFieldEntries === 0) return true;
  const keys = (list: readonly TableEntry[]) => list.map((entry) => relationKey(entry.table.schema, entry.table.name)).sort().join('\u0000');
  return keys(before) === keys(after);
}

function hasComputedFields(entry: TableEntry): boolean {
  return (entry.computed_fields?.length ?? 0) > 0;
}

/** How many of `entries[from..to)` have computed fields. */
function countIn(entries: readonly TableEntry[], from: number, to: number): number {
  let count = 0;
  for (let index = from; index < to; index++) if (hasComputedFields(entries[index]!)) count++;
  return count;
}

/**
 * The table's permissions of the inherited roles that do not define their own, on a copy:
 * the base model is kept from one metadata version to the next (tableModels).
 */
function withInheritedRoles(base: TableModel, roles: InheritedRoles): TableModel {
  if (roles.size === 0) return base;
  const model: TableModel = {
    ...base,
    insertPermissions: new Map(base.insertPermissions),
    updatePermissions: new Map(base.updatePermissions),
    deletePermissions: new Map(base.deletePermissions),
    inheritedSelect: new Map(base.inheritedSelect),
  };
  for (const role of roles.keys()) {
    for (const own of [model.insertPermissions, model.updatePermissions, model.deletePermissions] as Map<string, unknown>[]) {
      const inherited = inheritedPermission(role, own, roles);
      if (inherited.kind === 'defined' && !own.has(role)) own.set(role, inherited.permission);
    }
    if (model.selectPermissions.has(role)) continue;
    const parts = selectPermissionParts(role, model.selectPermissions, roles);
    if (parts.length > 0) model.inheritedSelect.set(role, parts);
  }
  return model;
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

/** The enum each tracked enum table with rows makes, by the table's key, with the primary key column the references name. */
function enumReferences(metadata: Metadata, catalog: Catalog, enumRows: EnumTableRows): Map<string, { column: string; reference: EnumReference }> {
  const enums = new Map<string, { column: string; reference: EnumReference }>();
  // Every metadata operation builds the model: with no enum table's rows read, nothing to walk.
  if (enumRows.size === 0) return enums;
  for (const entry of metadata.sources[0]?.tables ?? []) {
    const key = relationKey(entry.table.schema, entry.table.name);
    const read = enumRows.get(key);
    const relation = catalog.relations.get(key);
    if (entry.is_enum !== true || read === undefined || !('rows' in read) || relation?.primaryKey.length !== 1 || !isGraphqlName(tableTypeName(entry))) continue;
    enums.set(key, { column: relation.primaryKey[0]!, reference: enumReference(tableTypeName(entry), read.rows) });
  }
  return enums;
}

/** The enums a table's columns may reference, as text: what its memoized model depends on besides its entry and the catalog. */
function enumsReferencedBy(relation: CatalogRelation, enums: Map<string, { column: string; reference: EnumReference }>): string {
  if (enums.size === 0) return '';
  const referenced = relation.foreignKeys.flatMap((key) => {
    const target = enums.get(relationKey(key.refSchema, key.refTable));
    return target === undefined ? [] : [target.reference];
  });
  return referenced.length === 0 ? '' : JSON.stringify(referenced);
}

/** Hasura's enum reference: a single-column foreign key to an enum table's primary key. */
function enumOfColumn(relation: CatalogRelation, column: string, enums: Map<string, { column: string; reference: EnumReference }>): EnumReference | null {
  for (const key of relation.foreignKeys) {
    if (key.columns.length !== 1 || key.columns[0] !== column) continue;
    const target = enums.get(relationKey(key.refSchema, key.refTable));
    if (target !== undefined && key.refColumns[0] === target.column) return target.reference;
  }
  return null;
}

function tableModel(entry: TableEntry, relation: CatalogRelation, catalog: Catalog, enums: Map<string, { column: string; reference: EnumReference }>): TableModel | null {
  const configuration = entry.configuration ?? {};
  const typeName = tableTypeName(entry);
  if (!isGraphqlName(typeName)) return null;

  const columns: ColumnModel[] = [];
  for (const column of relation.columns) {
    const plain = columnTypeOf(column);
    const reference = plain === null ? null : enumOfColumn(relation, column.name, enums);
    const type = plain === null || reference === null ? plain : enumColumnType(plain, reference);
    const fieldName = customColumnName(configuration, column.name) ?? column.name;
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
    inheritedSelect: new Map(),
    uniqueConstraints: relation.uniqueConstraints,
    description: configuration.comment ?? relation.comment,
    ordinaryTable: relation.kind === 'r',
    writable: relation.viewInfo === null
      ? { insert: true, update: true, delete: true }
      : { insert: relation.viewInfo.insertable, update: relation.viewInfo.updatable, delete: relation.viewInfo.deletable },
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
