import { RawJson } from '../../../../src/bus/raw-json.js';
import { and } from '../../sql/sql-text.js';
import { readVisible } from '../../sql/where.js';
import type { Operation } from '../operation.js';
import { dataAccess, readableTable, trackedTable, type TableArg } from './access.js';
import { orderByClause } from './order-by.js';
import { limitClause, rowConditions, rowObject, type RelationshipSelect, type SelectColumn } from './select-columns.js';
import { runStatement, statementContext } from './statement.js';

export interface SelectArgs extends Omit<RelationshipSelect, 'name'> {
  table: TableArg;
  columns: SelectColumn[];
}

/**
 * `select` (RQL/DML/Select.hs): the rows the role may read that match `where`, in the
 * requested order, as a JSON array of objects built by PostgreSQL.
 */
export const selectRows: Operation<SelectArgs> = {
  type: 'select',
  argsSchema: 'query/select',
  readOnly: true,
  dataApi: true,
  async run(args, context) {
    const access = dataAccess(context);
    const path = context.argsPath;
    const table = readableTable(access, trackedTable(access, args.table, `${path}.table`), path);
    const statement = statementContext(access, context.metadata);
    const alias = statement.aliases.fresh();
    const object = rowObject(statement, access, table, alias, args.columns, `${path}.columns`);
    const conditions = rowConditions(statement, table, alias, args.where, `${path}.where`);
    const order = orderByClause(statement, access, table, alias, args.order_by, `${path}.order_by`);
    const rows = statement.aliases.fresh();
    const sql = `select coalesce(json_agg("${rows}"."j"), '[]')::text as "json" from (select ${object} as "j" from ${readVisible(statement, table, alias)} where ${and(conditions)}${order}${limitClause(table, args.limit, args.offset, path)}) as "${rows}"`;
    const row = await runStatement(context, statement, sql);
    return { response: new RawJson(row.json) };
  },
};
