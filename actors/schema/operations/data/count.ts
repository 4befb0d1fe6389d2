import { RawJson } from '../../../../src/bus/raw-json.js';
import type { BoolExp } from '../../../../src/metadata/types.js';
import { and, columnRef } from '../../sql/sql-text.js';
import { readVisible } from '../../sql/where.js';
import type { Operation } from '../operation.js';
import { dataAccess, permittedColumn, readableTable, trackedTable, type TableArg } from './access.js';
import { rowConditions } from './select-columns.js';
import { runStatement, statementContext } from './statement.js';

export interface CountArgs {
  table: TableArg;
  where?: BoolExp;
  distinct?: string[];
}

/**
 * `count` (RQL/DML/Count.hs): `{"count": n}` of the rows the role may read that match
 * `where`; with `distinct`, of the distinct values of those columns (which the role must
 * be allowed to read).
 */
export const countRows: Operation<CountArgs> = {
  type: 'count',
  argsSchema: 'query/count',
  readOnly: true,
  dataApi: true,
  async run(args, context) {
    const access = dataAccess(context);
    const path = context.argsPath;
    const table = readableTable(access, trackedTable(access, args.table, `${path}.table`), path, '; "count" is only allowed if the role has "select" permissions on the table');
    const statement = statementContext(access, context.metadata);
    const alias = statement.aliases.fresh();
    const byName = new Map(table.columns.map((column) => [column.name, column]));
    const distinct = (args.distinct ?? []).map((name, index) => columnRef(alias, permittedColumn(access, byName, 'select', name, `${path}.distinct[${index}]`).name));
    const conditions = rowConditions(statement, table, alias, args.where, `${path}.where`);
    const rows = `from ${readVisible(statement, table, alias)} where ${and(conditions)}`;
    const counted = distinct.length === 0 ? `select count(*) as "n" ${rows}` : `select count(*) as "n" from (select distinct ${distinct.join(', ')} ${rows}) as "${statement.aliases.fresh()}"`;
    const sql = `select json_build_object('count', "c"."n")::text as "json" from (${counted}) as "c"`;
    const row = await runStatement(context, statement, sql);
    return { response: new RawJson(row.json) };
  },
};
