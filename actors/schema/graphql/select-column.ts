import { GraphQLEnumType } from 'graphql';
import type { TableAccess } from '../models/role-access.js';
import { typeNames } from '../models/type-names.js';
import type { TypeRegistry } from './type-registry.js';

/** `<t>_select_column`: the columns of a table the role may select (distinct_on, count's columns). */
export function selectColumnEnum(registry: TypeRegistry, access: TableAccess): GraphQLEnumType {
  const name = typeNames.selectColumn(access.model.typeName);
  return registry.get(name, () => new GraphQLEnumType({
    name,
    description: `select columns of table ${JSON.stringify(access.model.table.name)}`,
    values: Object.fromEntries(access.columns.map((column) => [column.fieldName, { description: 'column name' }])),
  }));
}
