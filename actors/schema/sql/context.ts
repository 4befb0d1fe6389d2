import type { FragmentDefinitionNode } from 'graphql';
import { invariant } from '../../../src/errors/service-error.js';
import type { RoleAccess, TableAccess } from '../graphql/role-access.js';
import type { SourceModel } from '../graphql/table-model.js';
import type { InputReader } from './input.js';
import type { ParamList } from './params.js';
import type { AliasGenerator } from './sql-text.js';

/** What every part of the compiler needs while it turns one operation into one statement. */
export interface CompileContext {
  model: SourceModel;
  access: RoleAccess;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  reader: InputReader;
  params: ParamList;
  aliases: AliasGenerator;
}

export function tableAccessOf(context: CompileContext, key: string): TableAccess {
  const access = context.access.tables.get(key);
  invariant(access !== undefined, `role ${context.access.role} reads table ${key}`);
  return access;
}
