import { GraphQLEnumType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, type GraphQLFieldConfig } from 'graphql';
import type { RoleAccess, TableAccess } from '../models/role-access.js';
import { typeNames } from '../models/type-names.js';
import { boolExpType } from './filter-types.js';
import { tableObjectType } from './table-types.js';
import { columnOutputType, nonNullList, type TypeRegistry } from './type-registry.js';

/**
 * Streaming subscriptions as Hasura v2 serves them:
 * `<t>_stream(batch_size: Int!, cursor: [<t>_stream_cursor_input]!, where: <t>_bool_exp): [<t>!]!`,
 * the cursor being one column's initial value and an ordering.
 */
const CURSOR_ORDERING = new GraphQLEnumType({
  name: 'cursor_ordering',
  description: 'ordering argument of a cursor',
  values: {
    ASC: { description: 'ascending ordering of the cursor' },
    DESC: { description: 'descending ordering of the cursor' },
  },
});

export function streamField(registry: TypeRegistry, role: RoleAccess, access: TableAccess): GraphQLFieldConfig<unknown, unknown> {
  return {
    type: new GraphQLNonNull(nonNullList(tableObjectType(registry, role, access))),
    description: `fetch data from the table in a streaming manner: ${JSON.stringify(access.model.table.name)}`,
    args: {
      batch_size: { type: new GraphQLNonNull(GraphQLInt), description: 'maximum number of rows returned in a single batch' },
      cursor: { type: new GraphQLNonNull(new GraphQLList(cursorInput(registry, access))), description: 'cursor to stream the results returned by the query' },
      where: { type: boolExpType(registry, role, access), description: 'filter the rows returned' },
    },
  };
}

function cursorInput(registry: TypeRegistry, access: TableAccess): GraphQLInputObjectType {
  const table = access.model.typeName;
  const name = typeNames.streamCursorInput(table);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    description: `Streaming cursor of the table ${JSON.stringify(access.model.table.name)}`,
    fields: () => ({
      initial_value: { type: new GraphQLNonNull(cursorValueInput(registry, access)), description: 'Stream column input with initial value' },
      ordering: { type: CURSOR_ORDERING, description: 'cursor ordering' },
    }),
  }));
}

function cursorValueInput(registry: TypeRegistry, access: TableAccess): GraphQLInputObjectType {
  const name = typeNames.streamCursorValueInput(access.model.typeName);
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    description: 'Initial value of the column from where the streaming should start',
    fields: () => Object.fromEntries(access.columns.map((column) => [column.fieldName, { type: columnOutputType(column.type, true) }])),
  }));
}
