import { RawJson } from '../../../../src/bus/raw-json.js';
import { errors } from '../../../../src/errors/errors.js';
import { appendPath } from '../../../../src/errors/json-path.js';
import type { BoolExp } from '../../../../src/metadata/types.js';
import { qualified, quoteIdent } from '../../../../src/pg/quote.js';
import type { ColumnModel } from '../../models/table-model.js';
import type { UpdateAccess } from '../../models/write-access.js';
import { columnValue } from '../../sql/column-value.js';
import { permissionInput } from '../../sql/input.js';
import type { MutationContext } from '../../sql/mutation-context.js';
import { and, columnRef } from '../../sql/sql-text.js';
import { permissionCondition } from '../../sql/where.js';
import type { Operation } from '../operation.js';
import { dataAccess, notAllowed, permittedColumn, readableTable, trackedTable, whereNeedsSelect, type DataAccess, type TableArg } from './access.js';
import { mutationSql } from './mutation-result.js';
import { rowConditions } from './select-columns.js';
import { argInput, runStatement, statementContext } from './statement.js';

export interface UpdateArgs {
  table: TableArg;
  where: BoolExp;
  $set?: Record<string, unknown>;
  $inc?: Record<string, unknown>;
  $mul?: Record<string, unknown>;
  $default?: string[];
  returning?: string[];
}

const OPERATORS = ['$set', '$inc', '$mul', '$default'] as const;

/**
 * `update` (RQL/DML/Update.hs): changes the rows matching `where` (required) among those
 * the role's update permission filters in, only in the columns it may update; its presets
 * are set, and its check must hold for every row as updated, as `update_<t>` does.
 */
export const updateRows: Operation<UpdateArgs> = {
  type: 'update',
  argsSchema: 'query/update',
  dataApi: true,
  async run(args, context) {
    const access = dataAccess(context);
    const path = context.argsPath;
    const table = trackedTable(access, args.table, `${path}.table`);
    const permission = access.writes.updates.get(table.key) ?? notAllowed(access, 'update', table, path);
    const readable = readableTable(access, table, path, whereNeedsSelect('update'));
    const statement = statementContext(access, context.metadata);
    const alias = statement.aliases.fresh();
    const sets = setClauses(statement, access, permission, args, alias, path);
    const conditions = rowConditions(statement, { ...readable, filter: null }, alias, args.where, `${path}.where`);
    if (permission.filter !== null) conditions.unshift(permissionCondition(statement, table, permission.filter, alias));
    const write = `update ${qualified(table.table.schema, table.table.name)} as ${quoteIdent(alias)} set ${sets.join(', ')} where ${and(conditions)} returning *`;
    const sql = mutationSql(statement, access, { table, cte: statement.aliases.fresh(), write, returning: args.returning, check: permission.check }, path);
    const row = await runStatement(context, statement, sql);
    if (row.check_ok === false) throw errors.dataCheckFailed(path);
    return { response: new RawJson(row.json) };
  },
};

/**
 * `"column" = <new value>` per column an operator or a preset changes, checked as
 * Hasura's Update.hs checks them: a preset column may not be given, the others must be
 * the role's to update; errors point at the operator. Presets come first, then the
 * operators in order, a later one winning for a column given twice (Hasura's HashMap).
 */
function setClauses(statement: MutationContext, access: DataAccess, permission: UpdateAccess, args: UpdateArgs, alias: string, path: string): string[] {
  const columns = new Map(permission.columns.map((column) => [column.name, column]));
  const changes = new Map<string, string>();
  for (const [name, preset] of permission.presets) {
    const column = permission.model.columnsByName.get(name);
    if (column !== undefined) changes.set(name, columnValue(statement, column, permissionInput(preset, `$.set.${name}`)));
  }
  const change = (operatorPath: string, name: string, value: (column: ColumnModel) => string) => {
    if (permission.presets.has(name)) {
      throw errors.notSupported(operatorPath, `column ${JSON.stringify(name)} is not updatable for role ${JSON.stringify(access.read.role)}; its value is predefined in permission`);
    }
    const column = permittedColumn(access, columns, 'update', name, operatorPath);
    changes.set(column.name, value(column));
  };
  for (const operator of OPERATORS) {
    const operatorPath = appendPath(path, operator);
    if (operator === '$default') {
      for (const name of args.$default ?? []) change(operatorPath, name, () => 'default');
      continue;
    }
    for (const [name, value] of Object.entries(args[operator] ?? {})) {
      change(operatorPath, name, (column) => {
        const given = columnValue(statement, column, argInput(value, appendPath(operatorPath, name)));
        if (operator === '$set') return given;
        return `${columnRef(alias, column.name)} ${operator === '$inc' ? '+' : '*'} ${given}`;
      });
    }
  }
  if (changes.size === 0) throw errors.dataUnexpectedPayload(path, 'atleast one of $set, $inc, $mul has to be present');
  return [...changes].map(([name, value]) => `${quoteIdent(name)} = ${value}`);
}
