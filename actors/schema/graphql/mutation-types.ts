import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import { isGraphqlName } from '../../../src/graphql/name.js';
import { isNumeric } from '../models/column-types.js';
import type { RoleAccess, TableAccess } from '../models/role-access.js';
import type { ColumnModel } from '../models/table-model.js';
import { mutationTypeNames, type UpdateOperator } from '../models/mutation-names.js';
import type { InsertAccess, UpdateAccess, WriteAccess } from '../models/write-access.js';
import { boolExpType } from './filter-types.js';
import { tableObjectType } from './table-types.js';
import { columnOutputType, nonNullList, scalarType, type TypeRegistry } from './type-registry.js';

/**
 * The `mutation_root` of one role (Hasura's names and shapes): insert, update and
 * delete fields with their input types, built from the role's WriteAccess. Reads in
 * `returning` and `where` use the role's read types, so what a mutation returns or
 * filters on is what the role may select.
 */
export function mutationFields(registry: TypeRegistry, read: RoleAccess, writes: WriteAccess): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const [name, target] of writes.rootFields) {
    const readable = read.tables.get(target.table);
    const table = JSON.stringify((writes.inserts.get(target.table) ?? writes.updates.get(target.table) ?? writes.deletes.get(target.table))!.model.table.name);
    const response = () => mutationResponseType(registry, read, writes, target.table);
    const rowType = () => tableObjectType(registry, read, readable!);
    switch (target.kind) {
      case 'insert':
      case 'insert-one': {
        const insert = writes.inserts.get(target.table)!;
        const one = target.kind === 'insert-one';
        const args: GraphQLFieldConfigArgumentMap = one
          ? { object: { type: new GraphQLNonNull(insertInputType(registry, read, writes, insert)), description: 'the row to be inserted' } }
          : { objects: { type: new GraphQLNonNull(nonNullList(insertInputType(registry, read, writes, insert))), description: 'the rows to be inserted' } };
        const onConflict = onConflictType(registry, read, writes, target.table);
        if (onConflict !== null) args.on_conflict = { type: onConflict, description: 'upsert condition' };
        fields[name] = one
          ? { type: rowType(), args, description: `insert a single row into the table: ${table}` }
          : { type: response(), args, description: `insert data into the table: ${table}` };
        break;
      }
      case 'update':
      case 'update-by-pk': {
        const update = writes.updates.get(target.table)!;
        const args = updateOperatorArgs(registry, update);
        if (target.kind === 'update') {
          fields[name] = { type: response(), args: { ...args, where: { type: new GraphQLNonNull(boolExpType(registry, read, readable!)), description: 'filter the rows which have to be updated' } }, description: `update data of the table: ${table}` };
        } else {
          fields[name] = { type: rowType(), args: { ...args, pk_columns: { type: new GraphQLNonNull(pkColumnsType(registry, update)) } }, description: `update single row of the table: ${table}` };
        }
        break;
      }
      case 'update-many':
        fields[name] = {
          type: new GraphQLList(response()),
          args: { updates: { type: new GraphQLNonNull(nonNullList(updatesType(registry, read, writes.updates.get(target.table)!, readable!))), description: 'updates to execute, in order' } },
          description: `update multiples rows of table: ${table}`,
        };
        break;
      case 'delete':
        fields[name] = { type: response(), args: { where: { type: new GraphQLNonNull(boolExpType(registry, read, readable!)), description: 'filter the rows which have to be deleted' } }, description: `delete data from the table: ${table}` };
        break;
      case 'delete-by-pk':
        fields[name] = {
          type: rowType(),
          args: Object.fromEntries(readable!.model.primaryKey.map((column) => [column.fieldName, { type: columnOutputType(column.type, false) }])),
          description: `delete single row from the table: ${table}`,
        };
        break;
    }
  }
  return fields;
}

/** `<t>_mutation_response { affected_rows, returning }`; `returning` only when the role may read the table. */
function mutationResponseType(registry: TypeRegistry, read: RoleAccess, writes: WriteAccess, tableKey: string): GraphQLObjectType {
  const model = (writes.inserts.get(tableKey) ?? writes.updates.get(tableKey) ?? writes.deletes.get(tableKey))!.model;
  const name = mutationTypeNames.response(model.typeName);
  return registry.get(name, () => new GraphQLObjectType({
    name,
    description: `response of any mutation on the table ${JSON.stringify(model.table.name)}`,
    fields: () => {
      const readable = read.tables.get(tableKey);
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {
        affected_rows: { type: new GraphQLNonNull(GraphQLInt), description: 'number of rows affected by the mutation' },
      };
      if (readable !== undefined) fields.returning = { type: new GraphQLNonNull(nonNullList(tableObjectType(registry, read, readable))), description: 'data from the rows affected by the mutation' };
      return fields;
    },
  }));
}

/** `<t>_insert_input`: the insertable columns, and relationships to tables the role may also insert into. */
function insertInputType(registry: TypeRegistry, read: RoleAccess, writes: WriteAccess, insert: InsertAccess): GraphQLInputObjectType {
  const name = mutationTypeNames.insertInput(insert.model.typeName);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    description: `input type for inserting data into table ${JSON.stringify(insert.model.table.name)}`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const column of insert.columns) fields[column.fieldName] = { type: columnOutputType(column.type, true) };
      for (const relationship of insert.relationships) {
        if (fields[relationship.name] !== undefined) continue;
        const target = writes.inserts.get(relationship.target)!;
        fields[relationship.name] = { type: relationshipInsertType(registry, read, writes, target, relationship.kind) };
      }
      return fields;
    },
  }));
}

/** `<t>_obj_rel_insert_input { data, on_conflict }` and `<t>_arr_rel_insert_input { data: [...], on_conflict }`. */
function relationshipInsertType(registry: TypeRegistry, read: RoleAccess, writes: WriteAccess, target: InsertAccess, kind: 'object' | 'array'): GraphQLInputObjectType {
  const table = target.model.typeName;
  const name = kind === 'object' ? mutationTypeNames.objectRelationshipInsert(table) : mutationTypeNames.arrayRelationshipInsert(table);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    description: `input type for inserting ${kind} relation for remote table ${JSON.stringify(target.model.table.name)}`,
    fields: () => {
      const data = insertInputType(registry, read, writes, target);
      const fields: GraphQLInputFieldConfigMap = { data: { type: new GraphQLNonNull(kind === 'object' ? data : nonNullList(data)) } };
      const onConflict = onConflictType(registry, read, writes, target.model.key);
      if (onConflict !== null) fields.on_conflict = { type: onConflict, description: 'upsert condition' };
      return fields;
    },
  }));
}

/**
 * `<t>_on_conflict { constraint, update_columns, where }`: offered when the table has a
 * unique key and the role may update it, since an upsert updates (Hasura).
 */
function onConflictType(registry: TypeRegistry, read: RoleAccess, writes: WriteAccess, tableKey: string): GraphQLInputObjectType | null {
  const update = writes.updates.get(tableKey);
  const insert = writes.inserts.get(tableKey)!;
  const constraints = insert.model.uniqueConstraints.filter((constraint) => isGraphqlName(constraint.name));
  if (update === undefined || constraints.length === 0) return null;
  const table = insert.model.typeName;
  const name = mutationTypeNames.onConflict(table);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    description: `on_conflict condition type for table ${JSON.stringify(insert.model.table.name)}`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {
        constraint: { type: new GraphQLNonNull(constraintEnum(registry, insert, constraints)) },
        update_columns: { type: new GraphQLNonNull(nonNullList(updateColumnEnum(registry, update))), defaultValue: [] },
      };
      const readable = read.tables.get(tableKey);
      if (readable !== undefined) fields.where = { type: boolExpType(registry, read, readable) };
      return fields;
    },
  }));
}

function constraintEnum(registry: TypeRegistry, insert: InsertAccess, constraints: ReadonlyArray<{ name: string; columns: string[] }>): GraphQLEnumType {
  const name = mutationTypeNames.constraint(insert.model.typeName);
  return registry.get(name, () => new GraphQLEnumType({
    name,
    description: `unique or primary key constraints on table ${JSON.stringify(insert.model.table.name)}`,
    values: Object.fromEntries(constraints.map((constraint) => [
      constraint.name,
      { description: `unique or primary key constraint on columns ${constraint.columns.map((column) => JSON.stringify(column)).join(', ')}` },
    ])),
  }));
}

/** `<t>_update_column`; Hasura's `_PLACEHOLDER` when the role may update no column. */
function updateColumnEnum(registry: TypeRegistry, update: UpdateAccess): GraphQLEnumType {
  const name = mutationTypeNames.updateColumn(update.model.typeName);
  return registry.get(name, () => new GraphQLEnumType({
    name,
    description: `update columns of table ${JSON.stringify(update.model.table.name)}`,
    values: update.columns.length === 0
      ? { _PLACEHOLDER: { description: 'placeholder (do not use)' } }
      : Object.fromEntries(update.columns.map((column) => [column.fieldName, { description: 'column name' }])),
  }));
}

/** `_set`, `_inc` and the jsonb operators, each present when some updatable column takes it. */
function updateOperatorArgs(registry: TypeRegistry, update: UpdateAccess): GraphQLFieldConfigArgumentMap {
  const table = update.model.typeName;
  const args: GraphQLFieldConfigArgumentMap = {};
  const operatorInput = (operator: string, columns: ColumnModel[], type: (column: ColumnModel) => GraphQLInputFieldConfigMap[string]['type'], description: string) => {
    if (columns.length === 0) return;
    const name = mutationTypeNames.operatorInput(table, operator);
    args[operator] = {
      type: registry.get(name, () => new GraphQLInputObjectType({ name, description, fields: () => Object.fromEntries(columns.map((column) => [column.fieldName, { type: type(column) }])) })),
      description: OPERATOR_DESCRIPTIONS[operator],
    };
  };
  const jsonb = update.columns.filter((column) => column.type.category === 'jsonb');
  operatorInput('_append', jsonb, (column) => scalarType(column.type.scalar), `append existing jsonb value of filtered columns with new jsonb value`);
  operatorInput('_delete_at_path', jsonb, () => nonNullList(GraphQLString), 'delete the field or element with specified path (for JSON arrays, negative integers count from the end)');
  operatorInput('_delete_elem', jsonb, () => GraphQLInt, 'delete the array element with specified index (negative integers count from the end). throws an error if top level container is not an array');
  operatorInput('_delete_key', jsonb, () => GraphQLString, 'delete key/value pair or string element. key/value pairs are matched based on their key value');
  operatorInput('_inc', update.columns.filter((column) => isNumeric(column.type) && !column.type.isArray), (column) => scalarType(column.type.scalar), `input type for incrementing numeric columns in table ${JSON.stringify(update.model.table.name)}`);
  operatorInput('_prepend', jsonb, (column) => scalarType(column.type.scalar), `prepend existing jsonb value of filtered columns with new jsonb value`);
  operatorInput('_set', update.columns, (column) => columnOutputType(column.type, true), `input type for updating data in table ${JSON.stringify(update.model.table.name)}`);
  return args;
}

const OPERATOR_DESCRIPTIONS: Record<string, string> = {
  _append: 'append existing jsonb value of filtered columns with new jsonb value',
  _delete_at_path: 'delete the field or element with specified path (for JSON arrays, negative integers count from the end)',
  _delete_elem: 'delete the array element with specified index (negative integers count from the end). throws an error if top level container is not an array',
  _delete_key: 'delete key/value pair or string element. key/value pairs are matched based on their key value',
  _inc: 'increments the numeric columns with given value of the filtered values',
  _prepend: 'prepend existing jsonb value of filtered columns with new jsonb value',
  _set: 'sets the columns of the filtered rows to the given values',
} satisfies Record<UpdateOperator, string>;

function pkColumnsType(registry: TypeRegistry, update: UpdateAccess): GraphQLInputObjectType {
  const name = mutationTypeNames.pkColumns(update.model.typeName);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    description: `primary key columns input for table: ${update.model.table.name}`,
    fields: () => Object.fromEntries(update.model.primaryKey.map((column) => [column.fieldName, { type: columnOutputType(column.type, false) }])),
  }));
}

/** `<t>_updates { where, _set, _inc, ... }`: one update of `update_<t>_many`. */
function updatesType(registry: TypeRegistry, read: RoleAccess, update: UpdateAccess, readable: TableAccess): GraphQLInputObjectType {
  const name = mutationTypeNames.updates(update.model.typeName);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const [key, arg] of Object.entries(updateOperatorArgs(registry, update))) fields[key] = { type: arg.type as GraphQLInputObjectType, ...(arg.description ? { description: arg.description } : {}) };
      fields.where = { type: new GraphQLNonNull(boolExpType(registry, read, readable)), description: 'filter the rows which have to be updated' };
      return fields;
    },
  }));
}
