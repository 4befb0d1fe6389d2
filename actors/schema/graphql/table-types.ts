import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
} from 'graphql';
import type { ComputedFieldModel } from '../models/function-model.js';
import type { ColumnModel } from '../models/table-model.js';
import type { RoleAccess, TableAccess } from '../models/role-access.js';
import { typeNames } from '../models/type-names.js';
import { boolExpType } from './filter-types.js';
import { argsArgument } from './function-arguments.js';
import { selectColumnEnum } from './select-column.js';
import { aggregatedColumns, aggregatedComputedFields, AGGREGATE_FUNCTIONS } from '../models/aggregate-functions.js';
import { orderByType } from './order-types.js';
import { columnOutputType, nonNullList, scalarType, type TypeRegistry } from './type-registry.js';

/**
 * The output types of a table for one role: `<t>` with its permitted columns and
 * relationships, and `<t>_aggregate` with its aggregate fields.
 */
export function tableObjectType(registry: TypeRegistry, role: RoleAccess, access: TableAccess): GraphQLObjectType {
  const name = typeNames.object(access.model.typeName);
  return registry.get(name, () => new GraphQLObjectType({
    name,
    description: access.model.description ?? `columns and relationships of ${JSON.stringify(access.model.table.name)}`,
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
      for (const [fieldName, target] of access.fields) {
        if (target.kind === 'column') {
          fields[fieldName] = columnField(target.column);
          continue;
        }
        if (target.kind === 'computed-scalar' || target.kind === 'computed-table') {
          fields[fieldName] = computedField(registry, role, target.field);
          continue;
        }
        const related = role.tables.get(target.relationship.target)!;
        if (target.kind === 'object-relationship') {
          fields[fieldName] = { type: tableObjectType(registry, role, related), description: 'An object relationship' };
        } else if (target.kind === 'array-relationship') {
          fields[fieldName] = { type: new GraphQLNonNull(nonNullList(tableObjectType(registry, role, related))), args: selectArguments(registry, role, related), description: 'An array relationship' };
        } else {
          fields[fieldName] = { type: new GraphQLNonNull(tableAggregateType(registry, role, related)), args: selectArguments(registry, role, related), description: 'An aggregate relationship' };
        }
      }
      return fields;
    },
  }));
}

/** A column on its table's object type; json and jsonb ones take a `path`. */
export function columnField(column: ColumnModel): GraphQLFieldConfig<unknown, unknown> {
  return {
    type: columnOutputType(column.type, column.nullable),
    ...(column.type.category === 'json' || column.type.category === 'jsonb' ? { args: { path: { type: GraphQLString, description: 'JSON select path' } } } : {}),
    ...(column.description === null ? {} : { description: column.description }),
  };
}

/** `distinct_on`, `limit`, `offset`, `order_by`, `where`: the arguments of every list and aggregate field. */
export function selectArguments(registry: TypeRegistry, role: RoleAccess, access: TableAccess): GraphQLFieldConfigArgumentMap {
  return {
    distinct_on: { type: nonNullList(selectColumnEnum(registry, access)), description: 'distinct select on columns' },
    limit: { type: GraphQLInt, description: 'limit the number of rows returned' },
    offset: { type: GraphQLInt, description: 'skip the first n rows. Use only with order_by' },
    order_by: { type: nonNullList(orderByType(registry, role, access)), description: 'sort the rows by one or more columns' },
    where: { type: boolExpType(registry, role, access), description: 'filter the rows returned' },
  };
}

/**
 * `limit`, `offset`, `where` (`_and`, `_or`, `_not`): the arguments of a count-only
 * aggregate, whose table offers no column to order or be distinct on.
 */
export function countArguments(registry: TypeRegistry, role: RoleAccess, access: TableAccess): GraphQLFieldConfigArgumentMap {
  const { limit, offset, where } = selectArguments(registry, role, access);
  return { limit: limit!, offset: offset!, where: where! };
}

/** `<t>_aggregate { aggregate nodes }`; a count-only aggregate (no readable column) has no `nodes`. */
export function tableAggregateType(registry: TypeRegistry, role: RoleAccess, access: TableAccess): GraphQLObjectType {
  const table = access.model.typeName;
  const name = typeNames.aggregate(table);
  return registry.get(name, () => new GraphQLObjectType({
    name,
    description: `aggregated selection of ${JSON.stringify(access.model.table.name)}`,
    fields: () => ({
      aggregate: { type: aggregateFieldsType(registry, access) },
      ...(access.columns.length === 0 ? {} : { nodes: { type: new GraphQLNonNull(nonNullList(tableObjectType(registry, role, access))) } }),
    }),
  }));
}

/** `<t>_aggregate_fields { count(columns, distinct) avg {...} max {...} ... }`. */
function aggregateFieldsType(registry: TypeRegistry, access: TableAccess): GraphQLObjectType {
  const table = access.model.typeName;
  const name = typeNames.aggregateFields(table);
  return registry.get(name, () => new GraphQLObjectType({
    name,
    description: `aggregate fields of ${JSON.stringify(access.model.table.name)}`,
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {
        count: {
          type: new GraphQLNonNull(GraphQLInt),
          args: {
            ...(access.columns.length === 0 ? {} : { columns: { type: nonNullList(selectColumnEnum(registry, access)) } }),
            distinct: { type: GraphQLBoolean },
          },
        },
      };
      for (const fn of AGGREGATE_FUNCTIONS) {
        const columns = aggregatedColumns(access, fn);
        const computed = aggregatedComputedFields(access, fn);
        if (columns.length === 0 && computed.length === 0) continue;
        const typeName = typeNames.aggregateFunctionFields(table, fn);
        // sum, min and max keep the column's type; the statistics are Float (Hasura), and
        // so are they for computed fields here, though Hasura gives those their own type.
        const keepsType = fn === 'sum' || fn === 'min' || fn === 'max';
        fields[fn] = {
          type: registry.get(typeName, () => new GraphQLObjectType({
            name: typeName,
            description: `aggregate ${fn} on columns`,
            fields: () => ({
              ...Object.fromEntries(columns.map((column) => [column.fieldName, { type: keepsType ? scalarType(column.type.scalar) : GraphQLFloat }])),
              ...Object.fromEntries(computed.map((field) => [field.name, {
                type: keepsType && field.returns.kind === 'scalar' ? scalarType(field.returns.type.scalar) : GraphQLFloat,
                args: argsArgument(registry, field.argsTypeName, field.arguments, `input parameters for computed field ${JSON.stringify(field.name)}`),
                description: field.description,
              }])),
            }),
          })),
        };
      }
      return Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : 1)));
    },
  }));
}

/** A computed field on its table's object type. */
export function computedField(registry: TypeRegistry, role: RoleAccess, field: ComputedFieldModel): GraphQLFieldConfig<unknown, unknown> {
  const args = argsArgument(registry, field.argsTypeName, field.arguments, `input parameters for computed field ${JSON.stringify(field.name)}`);
  if (field.returns.kind === 'scalar') return { type: columnOutputType(field.returns.type, true), args, description: field.description };
  const access = role.tables.get(field.returns.table)!;
  const objectType = tableObjectType(registry, role, access);
  if (!field.returns.returnsSet) return { type: objectType, args, description: field.description };
  return { type: new GraphQLNonNull(nonNullList(objectType)), args: { ...args, ...selectArguments(registry, role, access) }, description: field.description };
}
