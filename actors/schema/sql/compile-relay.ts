import { visit } from 'graphql';
import { errors } from '../../../src/errors/errors.js';
import { connectionRelationship, connectionRootFields, isNode, nodeTable, relayNames, type ConnectionRoot } from '../models/relay-access.js';
import type { TableAccess } from '../models/role-access.js';
import { QUERY_ROOT } from '../models/type-names.js';
import type { CompiledOperation, CompileRequest } from './compile-operation.js';
import { compileContext, type CompileContext } from './context.js';
import { compileConnection } from './connection.js';
import { argumentsOf, collectFields, type CollectedField } from './fields.js';
import { functionCall } from './function-call.js';
import { checkKeyValues, decodeNodeId, nodeIdExpression } from './node-id.js';
import { joinCondition } from './relationships.js';
import { rowObject } from './select.js';
import { and, columnRef, jsonObject, nameLiteral } from './sql-text.js';
import { permissionFilter, readVisible } from './where.js';

/**
 * Compiles a query of the Relay API into ONE statement, as compileOperation does for
 * /v1/graphql: `node(id)` and `<t>_connection` at the root, and the Relay fields of rows
 * (`id`, `<rel>_connection`) wherever a row is selected, through the compile context.
 */
export function compileRelayOperation(request: CompileRequest): CompiledOperation {
  const context = compileContext({ ...request, relayField: relayRowField, interfaces: RELAY_INTERFACES });
  const connections = connectionRootFields(request.access);
  const roots = collectFields(context, QUERY_ROOT, [request.operation.selectionSet], '$');
  const values = roots.map((field): [string, { sql: string } | { json: string }] => {
    if (field.name === '__typename') return [field.responseKey, { sql: nameLiteral(QUERY_ROOT) }];
    if (field.name === 'node') return [field.responseKey, { sql: compileNode(context, field) }];
    const connection = connections.get(field.name);
    if (connection !== undefined) return [field.responseKey, { sql: compileRootConnection(context, connection, field) }];
    // Introspection and the placeholder: computed once per plan, so every variable they read shapes it.
    for (const node of field.nodes) visit(node, { Variable: (variable) => void context.reader.pin(variable.name.value) });
    return [field.responseKey, { json: request.resolveStatic(field) }];
  });
  const reads = { tables: [...context.reads.tables], callsFunctions: context.reads.callsFunctions };
  const base = { variableUses: context.reader.uses, reads, cursorParam: null };
  if (values.every(([, value]) => 'json' in value)) {
    const data = values.map(([key, value]) => `${JSON.stringify(key)}:${(value as { json: string }).json}`).join(',');
    return { sql: null, params: [], staticData: `{${data}}`, ...base };
  }
  const pairs = values.map(([key, value]): [string, string] => [key, 'sql' in value ? value.sql : context.params.add({ kind: 'constant', value: value.json }, 'json')]);
  return { sql: `select ${jsonObject(pairs)}::text as "data"`, params: context.params.sources, staticData: null, ...base };
}

export const RELAY_INTERFACES: ReadonlySet<string> = new Set([relayNames.nodeInterface]);

/** `id` and `<rel>_connection` of a row; undefined for the fields /v1/graphql has too. */
export function relayRowField(context: CompileContext, access: TableAccess, alias: string, field: CollectedField): string | undefined {
  if (field.name === 'id' && isNode(access)) return nodeIdExpression(context, access, alias);
  const connection = connectionRelationship(context.access, access, field.name);
  if (connection === undefined) return undefined;
  return compileConnection(context, connection.related, field, (related) => joinCondition(connection.relationship, alias, related));
}

function compileRootConnection(context: CompileContext, connection: ConnectionRoot, field: CollectedField): string {
  if (connection.function === undefined) return compileConnection(context, connection.access, field);
  const fn = connection.function.function;
  const call = functionCall(context, { function: fn.function, arguments: fn.arguments, args: argumentsOf(field).get('args') });
  return compileConnection(context, connection.access, field, undefined, call);
}

/**
 * `node(id: ID!)`: the row the global id names, when the role may read it (its permission
 * filter applies, so a row outside it is null), else null; Hasura's errors for an id that
 * is malformed or names no table the role may read as a Node.
 */
function compileNode(context: CompileContext, field: CollectedField): string {
  const input = argumentsOf(field).get('id')!;
  const id = decodeNodeId(context.reader.name(input), input.path);
  const access = nodeTable(context.access, id.schema, id.table);
  if (access === undefined) throw errors.invalidNodeId(input.path, `no such table found: ${JSON.stringify(`${id.schema}.${id.table}`)}`);
  checkKeyValues(access, id.values, input.path);
  const alias = context.aliases.fresh();
  const conditions = access.model.primaryKey.map((column, index) => {
    const value = id.values[index];
    const encoded = column.type.category === 'json' || column.type.category === 'jsonb' ? JSON.stringify(value) : value;
    return `${columnRef(alias, column.name)} = ${context.params.add({ kind: 'constant', value: encoded }, column.type.sqlType)}`;
  });
  const filter = permissionFilter(context, access, alias);
  if (filter !== null) conditions.push(filter);
  return `(select ${rowObject(context, access, alias, field)} from ${readVisible(context, access, alias)} where ${and(conditions)})`;
}

