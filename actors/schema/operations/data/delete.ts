import { RawJson } from '../../../../src/bus/raw-json.js';
import type { BoolExp } from '../../../../src/metadata/types.js';
import { qualified, quoteIdent } from '../../../../src/pg/quote.js';
import { and } from '../../sql/sql-text.js';
import { permissionCondition } from '../../sql/where.js';
import type { Operation } from '../operation.js';
import { dataAccess, notAllowed, readableTable, trackedTable, whereNeedsSelect, type TableArg } from './access.js';
import { mutationSql } from './mutation-result.js';
import { rowConditions } from './select-columns.js';
import { runStatement, statementContext } from './statement.js';

export interface DeleteArgs {
  table: TableArg;
  where: BoolExp;
  returning?: string[];
}

/**
 * `delete` (RQL/DML/Delete.hs): deletes the rows matching `where` (required; `{}` for
 * all) among those the role's delete permission lets it delete and its select
 * permission lets it see, as `delete_<t>` does.
 */
export const deleteRows: Operation<DeleteArgs> = {
  type: 'delete',
  argsSchema: 'query/delete',
  dataApi: true,
  async run(args, context) {
    const access = dataAccess(context);
    const path = context.argsPath;
    const table = trackedTable(access, args.table, `${path}.table`);
    const permission = access.writes.deletes.get(table.key) ?? notAllowed(access, 'delete', table, path);
    const readable = readableTable(access, table, path, whereNeedsSelect('delete'));
    const statement = statementContext(access, context.metadata);
    const alias = statement.aliases.fresh();
    const conditions = rowConditions(statement, { ...readable, filter: null }, alias, args.where, `${path}.where`);
    if (permission.filter !== null) conditions.unshift(permissionCondition(statement, table, permission.filter, alias));
    const write = `delete from ${qualified(table.table.schema, table.table.name)} as ${quoteIdent(alias)} where ${and(conditions)} returning *`;
    const sql = mutationSql(statement, access, { table, cte: statement.aliases.fresh(), write, returning: args.returning, check: null }, path);
    const row = await runStatement(context, statement, sql);
    return { response: new RawJson(row.json) };
  },
};
