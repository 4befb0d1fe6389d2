import { GraphQLInputObjectType, type GraphQLInputFieldConfigMap } from 'graphql';
import { isComparable, isNumeric, type ColumnType } from '../column-types.js';
import type { RoleAccess, TableAccess } from '../role-access.js';
import { typeNames } from '../type-names.js';
import type { ComputedFieldModel } from '../function-model.js';
import { plainScalarType } from './function-types.js';
import { orderByEnum, type TypeRegistry } from './type-registry.js';

/** `<t>_order_by`: columns, object relationships and `<rel>_aggregate` orderings. */
export function orderByType(registry: TypeRegistry, role: RoleAccess, access: TableAccess): GraphQLInputObjectType {
  const name = typeNames.orderBy(access.model.typeName);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    description: `Ordering options when selecting data from ${JSON.stringify(access.model.table.name)}.`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const [fieldName, target] of access.fields) {
        if (target.kind === 'column') fields[fieldName] = { type: orderByEnum() };
        else if (target.kind === 'computed-scalar' && plainScalarType(target.field) !== null) fields[fieldName] = { type: orderByEnum() };
        else if (target.kind === 'object-relationship') fields[fieldName] = { type: orderByType(registry, role, role.tables.get(target.relationship.target)!) };
        else if (target.kind === 'array-aggregate') fields[fieldName] = { type: aggregateOrderByType(registry, role.tables.get(target.relationship.target)!) };
      }
      return fields;
    },
  }));
}

/** The aggregate functions that apply to a column type, and the type of their result. */
export const NUMERIC_FUNCTIONS = ['avg', 'stddev', 'stddev_pop', 'stddev_samp', 'sum', 'var_pop', 'var_samp', 'variance'] as const;
export const COMPARABLE_FUNCTIONS = ['max', 'min'] as const;

export function aggregatedColumns(access: TableAccess, fn: string): TableAccess['columns'] {
  const applies = appliesTo(fn);
  return access.columns.filter((column) => applies(column.type));
}

/**
 * The scalar computed fields the role may select that `fn` applies to: Hasura offers
 * them in `<t>_<fn>_fields` beside the columns (tableAggregationFields), with their args.
 */
export function aggregatedComputedFields(access: TableAccess, fn: string): ComputedFieldModel[] {
  const applies = appliesTo(fn);
  const fields: ComputedFieldModel[] = [];
  for (const target of access.fields.values()) {
    if (target.kind === 'computed-scalar' && target.field.returns.kind === 'scalar' && applies(target.field.returns.type)) fields.push(target.field);
  }
  return fields;
}

function appliesTo(fn: string): (type: ColumnType) => boolean {
  return (COMPARABLE_FUNCTIONS as readonly string[]).includes(fn) ? isComparable : isNumeric;
}

/** `<t>_aggregate_order_by { count avg {...} max {...} ... }`. */
function aggregateOrderByType(registry: TypeRegistry, access: TableAccess): GraphQLInputObjectType {
  const table = access.model.typeName;
  const name = typeNames.aggregateOrderBy(table);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    description: `order by aggregate values of table ${JSON.stringify(access.model.table.name)}`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = { count: { type: orderByEnum() } };
      for (const fn of [...NUMERIC_FUNCTIONS, ...COMPARABLE_FUNCTIONS].sort()) {
        const columns = aggregatedColumns(access, fn);
        if (columns.length === 0) continue;
        const typeName = typeNames.aggregateFunctionOrderBy(table, fn);
        fields[fn] = {
          type: registry.get(typeName, () => new GraphQLInputObjectType({
            name: typeName,
            description: `order by ${fn}() on columns of table ${JSON.stringify(access.model.table.name)}`,
            fields: () => Object.fromEntries(columns.map((column) => [column.fieldName, { type: orderByEnum() }])),
          })),
        };
      }
      return fields;
    },
  }));
}
