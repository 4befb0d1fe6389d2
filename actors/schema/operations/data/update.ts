import { errors } from '../../../../src/errors/errors.js';
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
import { dataAccess, notAllowed, permittedColumn, readableTable, trackedTable, type DataAccess, type TableArg } from './access.js';
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
type Operator = (typeof OPERATORS)[number];

/**
 * `update` (RQL/DML/Update.hs): changes the rows matching `where` (required) among those
 * the role's update permission filters in, only in the columns it may update; its presets
 * are set whatever the request says, and its check must hold for every row as updated,
 * as `update_<t>` does.
 */
export const updateRows: Operation<UpdateArgs> = {
  type: 'update',
  argsSchema: 'query/update',
  openToRoles: true,
  async run(args, context) {
    const access = dataAccess(context);
    const path = context.argsPath;
    const table = trackedTable(access, args.table, `${path}.table`);
    const permission = access.writes.updates.get(table.key) ?? notAllowed(access, 'update', table, path);
    const readable = readableTable(access, table, path);
    const statement = statementContext(access, context.metadata);
    const alias = statement.aliases.fresh();
    const sets = setClauses(statement, access, permission, args, alias, path);
    const conditions = rowConditions(statement, { ...readable, filter: null }, alias, args.where, `${path}.where`);
    if (permission.filter !== null) conditions.unshift(permissionCondition(statement, table, permission.filter, alias));
    const write = `update ${qualified(table.table.schema, table.table.name)} as ${quoteIdent(alias)} set ${sets.join(', ')} where ${and(conditions)} returning *`;
    const sql = mutationSql(statement, access, { table, cte: statement.aliases.fresh(), write, returning: args.returning, check: permission.check }, path);
    const row = await runStatement(context, statement, sql);
    if (row.check_ok === false) throw errors.permissionCheckFailed(path);
    return { response: JSON.parse(row.json) as unknown };
  },
};

/** `"column" = <new value>` per column an operator or a preset changes; a column in two operators is refused. */
function setClauses(statement: MutationContext, access: DataAccess, permission: UpdateAccess, args: UpdateArgs, alias: string, path: string): string[] {
  const columns = new Map(permission.columns.map((column) => [column.name, column]));
  const changes = new Map<string, { operator: Operator; value: string }>();
  const change = (operator: Operator, name: string, valuePath: string, value: (column: ColumnModel) => string) => {
    const column = permittedColumn(access, columns, 'update', name, valuePath);
    const earlier = changes.get(column.name);
    if (earlier !== undefined) throw errors.columnInTwoUpdateOperators(path, column.name, earlier.operator, operator);
    changes.set(column.name, { operator, value: value(column) });
  };
  for (const operator of OPERATORS) {
    const operatorPath = `${path}['${operator}']`;
    if (operator === '$default') {
      (args.$default ?? []).forEach((name, index) => change(operator, name, `${operatorPath}[${index}]`, () => 'default'));
      continue;
    }
    for (const [name, value] of Object.entries(args[operator] ?? {})) {
      const input = argInput(value, `${operatorPath}.${name}`);
      change(operator, name, input.path, (column) => {
        const given = columnValue(statement, column, input);
        if (operator === '$set') return given;
        return `${columnRef(alias, column.name)} ${operator === '$inc' ? '+' : '*'} ${given}`;
      });
    }
  }
  for (const [name, preset] of permission.presets) {
    const column = permission.model.columnsByName.get(name);
    if (column !== undefined) changes.set(name, { operator: '$set', value: columnValue(statement, column, permissionInput(preset, `$.set.${name}`)) });
  }
  if (changes.size === 0) throw errors.updateOperatorRequired(path, OPERATORS.join(', '));
  return [...changes].map(([name, { value }]) => `${quoteIdent(name)} = ${value}`);
}
