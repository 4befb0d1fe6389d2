import { GraphQLInputObjectType, type GraphQLInputFieldConfigMap } from 'graphql';
import { aggregatedColumns, AGGREGATE_FUNCTIONS } from '../models/aggregate-functions.js';
import type { RoleAccess, TableAccess } from '../models/role-access.js';
import { typeNames } from '../models/type-names.js';
import { aggregableRowsOf, plainScalarType } from '../models/function-model.js';
import { orderByEnum, type TypeRegistry } from './type-registry.js';

/** `<t>_order_by`: columns, object relationships, `<rel>_aggregate` and `<computed field>_aggregate` orderings. */
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
        else if (target.kind === 'computed-table') {
          const returned = aggregableRowsOf(target.field);
          const related = returned === null ? undefined : role.tables.get(returned);
          const key = `${fieldName}_aggregate`;
          if (related?.allowAggregations === true && !access.fields.has(key)) fields[key] = { type: aggregateOrderByType(registry, related) };
        }
      }
      return fields;
    },
  }));
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
      for (const fn of [...AGGREGATE_FUNCTIONS].sort()) {
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
