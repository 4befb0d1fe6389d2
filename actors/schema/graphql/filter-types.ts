import { GraphQLBoolean, GraphQLInputObjectType, GraphQLNonNull, GraphQLString, type GraphQLInputFieldConfigMap, type GraphQLInputType } from 'graphql';
import { INT_TYPE, type ColumnType } from '../models/column-types.js';
import { castExpType, objectOperandType } from './extension-inputs.js';
import type { RoleAccess, TableAccess } from '../models/role-access.js';
import { typeNames } from '../models/type-names.js';
import { operatorsFor, type OperandKind } from '../models/operators.js';
import { inputArgumentsOf, plainScalarType } from '../models/function-model.js';
import { selectColumnEnum } from './select-column.js';
import { columnNamedType, nonNullList, scalarType, type TypeRegistry } from './type-registry.js';

/** `<t>_bool_exp` and the `<type>_comparison_exp` types of its columns (the `where` argument). */
export function boolExpType(registry: TypeRegistry, role: RoleAccess, access: TableAccess): GraphQLInputObjectType {
  const name = typeNames.boolExp(access.model.typeName);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    description: `Boolean expression to filter rows from the table ${JSON.stringify(access.model.table.name)}. All fields are combined with a logical 'AND'.`,
    fields: () => {
      const self = boolExpType(registry, role, access);
      const fields: GraphQLInputFieldConfigMap = {
        _and: { type: nonNullList(self) },
        _not: { type: self },
        _or: { type: nonNullList(self) },
      };
      for (const [fieldName, target] of access.fields) {
        if (target.kind === 'column') fields[fieldName] = { type: comparisonType(registry, target.column.type) };
        else if (target.kind === 'computed-scalar') {
          const type = plainScalarType(target.field);
          if (type !== null) fields[fieldName] = { type: comparisonType(registry, type) };
        } else if (target.kind === 'computed-table' && target.field.returns.kind === 'table' && inputArgumentsOf(target.field.arguments).length === 0) {
          // Some returned row satisfies the nested expression (Hasura's CFBETable).
          fields[fieldName] = { type: boolExpType(registry, role, role.tables.get(target.field.returns.table)!) };
        }
        else if (target.kind === 'object-relationship' || target.kind === 'array-relationship') {
          fields[fieldName] = { type: boolExpType(registry, role, role.tables.get(target.relationship.target)!) };
        } else if (target.kind === 'array-aggregate') {
          fields[fieldName] = { type: aggregateBoolExpType(registry, role, role.tables.get(target.relationship.target)!) };
        }
      }
      return fields;
    },
  }));
}

/**
 * `<t>_aggregate_bool_exp { count: {arguments, distinct, filter, predicate} }`: rows whose
 * related rows, counted, satisfy the predicate (Hasura's aggregation predicates).
 */
function aggregateBoolExpType(registry: TypeRegistry, role: RoleAccess, access: TableAccess): GraphQLInputObjectType {
  const name = typeNames.aggregateBoolExp(access.model.typeName);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    fields: () => ({
      count: {
        type: registry.get(typeNames.aggregateBoolExpCount(access.model.typeName), () => new GraphQLInputObjectType({
          name: typeNames.aggregateBoolExpCount(access.model.typeName),
          fields: () => ({
            arguments: { type: nonNullList(selectColumnEnum(registry, access)) },
            distinct: { type: GraphQLBoolean },
            filter: { type: boolExpType(registry, role, access) },
            predicate: { type: new GraphQLNonNull(comparisonType(registry, INT_TYPE)) },
          }),
        })),
      },
    }),
  }));
}

function comparisonType(registry: TypeRegistry, type: ColumnType): GraphQLInputObjectType {
  const name = type.isArray ? typeNames.arrayComparison(type.scalar) : typeNames.comparison(type.scalar);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    description: `Boolean expression to compare columns of type ${JSON.stringify(type.scalar)}. All fields are combined with logical 'AND'.`,
    fields: () => Object.fromEntries(operatorsFor(type).map((operator) => [
      operator.name,
      { type: operandType(registry, type, operator.operand), ...(operator.description === undefined ? {} : { description: operator.description }) },
    ])),
  }));
}

function operandType(registry: TypeRegistry, type: ColumnType, operand: OperandKind): GraphQLInputType {
  switch (operand) {
    case 'lquery':
    case 'ltxtquery':
      return scalarType(operand);
    case 'lquery-list':
      return nonNullList(GraphQLString);
    case 'd-within':
    case 'd-within-geography':
    case 'nband-geom':
    case 'geom-nband':
      return objectOperandType(registry, type, operand);
    case 'cast':
      return castExpType(registry, type, comparisonType);
    case 'scalar':
      return columnNamedType(type);
    case 'scalar-list':
    case 'array':
      return nonNullList(columnNamedType(type));
    case 'string':
      return GraphQLString;
    case 'string-list':
      return nonNullList(GraphQLString);
    case 'boolean':
      return GraphQLBoolean;
  }
}
