import { errors } from '../../../src/errors/errors.js';
import { aesonTypeName } from '../../../src/json/aeson-type.js';
import { parseJsonExactNumbers } from '../../../src/json/exact-numbers.js';
import type { ServiceError } from '../../../src/errors/service-error.js';
import { NODE_ID_VERSION } from '../models/relay-access.js';
import type { TableAccess } from '../models/role-access.js';
import type { CompileContext } from './context.js';
import { columnRef } from './sql-text.js';

/**
 * Global ids of the Relay API as Hasura v2 emits them (Note [Relay Node Id] in its
 * Schema/Node.hs): the base64 of the JSON array `[1, "<schema>", "<table>", <primary key
 * values>...]`. Postgres builds the array (`json_build_array` writes `[1, "public",
 * "author", 2]`, the very bytes Hasura's ids encode), so an id is made where the row is read.
 */

/** The SQL of the row's global id. */
export function nodeIdExpression(context: CompileContext, access: TableAccess, alias: string): string {
  const { table, primaryKey } = access.model;
  const parts = [
    String(NODE_ID_VERSION),
    context.params.add({ kind: 'constant', value: table.schema }, 'text'),
    context.params.add({ kind: 'constant', value: table.name }, 'text'),
    ...primaryKey.map((column) => columnRef(alias, column.name)),
  ];
  return base64Text(`json_build_array(${parts.join(', ')})::text`);
}

/** The base64 of a text expression, without the line breaks `encode` puts every 76 characters. */
export function base64Text(text: string): string {
  return `translate(encode(convert_to(${text}, 'UTF8'), 'base64'), E'\\n', '')`;
}

export interface DecodedNodeId {
  schema: string;
  table: string;
  /** The primary key values, in the key's column order. */
  values: unknown[];
}

/** Reads a global id, or says what is wrong with it in the words of Hasura's parser (Schema/Node.hs). */
export function decodeNodeId(id: string, path: string): DecodedNodeId {
  const invalid = (detail: string): ServiceError => errors.invalidNodeId(path, detail);
  let parsed: unknown;
  try {
    parsed = parseJsonExactNumbers(Buffer.from(id, 'base64').toString('utf8'));
  } catch {
    throw invalid('Error in $: Failed reading: not a valid json value');
  }
  if (!Array.isArray(parsed)) throw invalid(`Error in $: parsing [] failed, expected Array, but encountered ${aesonTypeName(parsed)}`);
  const [version, schema, table, ...values] = parsed as unknown[];
  if (parsed.length === 0) throw invalid('Error in $: unexpected GUID format, found empty list');
  if (typeof version !== 'number') throw invalid('Error in $: unexpected GUID format, needs to start with a version number');
  if (version !== NODE_ID_VERSION) throw invalid(`Error in $: unsupported GUID version: ${Number.isInteger(version) ? `${version}.0` : version}`);
  if (values.length === 0) throw invalid('Error in $: GUID version 1: expecting schema name, table name and at least one column value');
  if (typeof schema !== 'string' || typeof table !== 'string') {
    throw invalid(`Error in $: parsing Text failed, expected String, but encountered ${aesonTypeName(typeof schema !== 'string' ? schema : table)}`);
  }
  return { schema, table, values };
}

/** Checks the id's values against the table's primary key, as Hasura's `buildNodeIdBoolExp` does. */
export function checkKeyValues(access: TableAccess, values: unknown[], path: string): void {
  const key = access.model.primaryKey;
  if (values.length < key.length) {
    const missing = key.slice(values.length).map((column) => JSON.stringify(column.name)).join(', ');
    throw errors.invalidNodeId(path, `primary key columns ${missing} are missing`);
  }
  if (values.length > key.length) throw errors.invalidNodeId(path, `unexpected column values ${JSON.stringify(values.slice(key.length))}`);
}
