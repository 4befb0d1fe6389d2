import type { FragmentDefinitionNode } from 'graphql';
import { invariant } from '../../../src/errors/service-error.js';
import type { QualifiedName } from '../../../src/metadata/types.js';
import { relationKey } from '../../../src/pg/catalog.js';
import { qualified } from '../../../src/pg/quote.js';
import type { RoleAccess, TableAccess } from '../models/role-access.js';
import type { SourceModel } from '../models/table-model.js';
import type { CollectedField } from './collected-field.js';
import { InputReader } from './input.js';
import { ParamList, type Placeholder } from './params.js';
import { AliasGenerator, tableRef } from './sql-text.js';

/**
 * What a statement reads, for the subscriptions' change feed: the tables (relation keys)
 * and whether it calls functions, whose bodies may read anything.
 */
export interface StatementReads {
  tables: Set<string>;
  callsFunctions: boolean;
}

/** What every part of the compiler needs while it turns one operation into one statement. */
export interface CompileContext {
  model: SourceModel;
  access: RoleAccess;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  reader: InputReader;
  params: ParamList;
  aliases: AliasGenerator;
  reads: StatementReads;
  /** SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: big numbers are answered as strings (output-value.ts). */
  stringifyNumbers: boolean;
  /** The Relay API's own fields of a row (`id`, `<rel>_connection`, compile-relay.ts); absent for /v1/graphql. */
  relayField?: RowFieldCompiler;
  /**
   * Interfaces whose fragments apply to every object type they are spread on: graphql-js
   * refuses a spread on a type that cannot implement one, so a validated spread of `Node`
   * always sits on a Node table's type. Absent for /v1/graphql, whose schema has none.
   */
  interfaces?: ReadonlySet<string>;
}

/** A row's field that the table's access does not describe, or undefined when it is not such a field. */
export type RowFieldCompiler = (context: CompileContext, access: TableAccess, alias: string, field: CollectedField) => string | undefined;

/** A fresh context for compiling one operation of a role with these variables. */
export function compileContext(request: {
  model: SourceModel;
  access: RoleAccess;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  placeholder?: Placeholder | undefined;
  stringifyNumbers?: boolean | undefined;
  relayField?: RowFieldCompiler | undefined;
  interfaces?: ReadonlySet<string> | undefined;
}): CompileContext {
  return {
    model: request.model,
    access: request.access,
    fragments: request.fragments,
    reader: new InputReader(request.variables),
    params: new ParamList(request.placeholder),
    aliases: new AliasGenerator(),
    reads: { tables: new Set(), callsFunctions: false },
    stringifyNumbers: request.stringifyNumbers ?? false,
    ...(request.relayField === undefined ? {} : { relayField: request.relayField }),
    ...(request.interfaces === undefined ? {} : { interfaces: request.interfaces }),
  };
}

/** `"schema"."table"` of a table whose rows the statement reads, noted in `context.reads`. */
export function readSource(context: CompileContext, access: TableAccess): string {
  const { table } = access.model;
  context.reads.tables.add(relationKey(table.schema, table.name));
  return qualified(table.schema, table.name);
}

/** `"schema"."table" as "alias"` of a table the statement reads, noted in `context.reads`. */
export function readFrom(context: CompileContext, table: QualifiedName, alias: string): string {
  context.reads.tables.add(relationKey(table.schema, table.name));
  return tableRef(table, alias);
}

export function tableAccessOf(context: CompileContext, key: string): TableAccess {
  const access = context.access.tables.get(key);
  invariant(access !== undefined, `role ${context.access.role} reads table ${key}`);
  return access;
}
