import type { FragmentDefinitionNode } from 'graphql';
import { invariant } from '../../../src/errors/service-error.js';
import type { RoleAccess, TableAccess } from '../models/role-access.js';
import type { SourceModel } from '../models/table-model.js';
import { InputReader } from './input.js';
import { ParamList } from './params.js';
import { AliasGenerator } from './sql-text.js';

/** What every part of the compiler needs while it turns one operation into one statement. */
export interface CompileContext {
  model: SourceModel;
  access: RoleAccess;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  reader: InputReader;
  params: ParamList;
  aliases: AliasGenerator;
}

/** A fresh context for compiling one operation of a role with these variables. */
export function compileContext(request: { model: SourceModel; access: RoleAccess; fragments: ReadonlyMap<string, FragmentDefinitionNode>; variables: Record<string, unknown> }): CompileContext {
  return { model: request.model, access: request.access, fragments: request.fragments, reader: new InputReader(request.variables), params: new ParamList(), aliases: new AliasGenerator() };
}

export function tableAccessOf(context: CompileContext, key: string): TableAccess {
  const access = context.access.tables.get(key);
  invariant(access !== undefined, `role ${context.access.role} reads table ${key}`);
  return access;
}
