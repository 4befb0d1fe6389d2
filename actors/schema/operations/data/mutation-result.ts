import type { BoolExp } from '../../../../src/metadata/types.js';
import type { TableModel } from '../../models/table-model.js';
import type { MutationContext } from '../../sql/mutation-context.js';
import { writeStatement } from '../../sql/mutation-plan.js';
import { jsonObject } from '../../sql/sql-text.js';
import { permissionCondition } from '../../sql/where.js';
import { readableTable, type DataAccess } from './access.js';
import { rowObject } from './select-columns.js';

/**
 * The statement of a v1 `insert`, `update` or `delete`: the write as a data-modifying CTE
 * named `cte`, answered as Hasura answers it (RQL/DML/Mutation.hs): `{"affected_rows": n}`,
 * with `"returning": [...]` when asked. Returned rows and columns are those the role may
 * read, as GraphQL's `returning` shows them; `check_ok` is the permission's check on
 * every written row, false when one fails (the request then rolls back).
 */
export interface MutationStatement {
  table: TableModel;
  cte: string;
  /** `<write> returning *`. */
  write: string;
  returning: string[] | undefined;
  check: BoolExp | null;
}

export function mutationSql(statement: MutationContext, access: DataAccess, mutation: MutationStatement, argsPath: string): string {
  const rows = `"${mutation.cte}"`;
  const pairs: Array<[string, string]> = [['affected_rows', `(select count(*) from ${rows})`]];
  if (mutation.returning !== undefined) {
    const readable = readableTable(access, mutation.table, argsPath, '; "returning" can only be used if the role has "select" permission on the table');
    const alias = statement.aliases.fresh();
    const object = rowObject(statement, access, readable, alias, mutation.returning, `${argsPath}.returning`);
    const filter = readable.filter === null ? 'true' : permissionCondition(statement, mutation.table, readable.filter, alias);
    pairs.push(['returning', `(select coalesce(json_agg(${object}), '[]') from ${rows} as "${alias}" where ${filter})`]);
  }
  const outputs: Array<[string, string]> = [['json', `${jsonObject(pairs)}::text`]];
  if (mutation.check !== null) {
    const alias = statement.aliases.fresh();
    outputs.push(['check_ok', `(select bool_and(${permissionCondition(statement, mutation.table, mutation.check, alias)}) from ${rows} as "${alias}")`]);
  }
  return writeStatement(statement, [`${rows} as (${mutation.write})`], outputs);
}
