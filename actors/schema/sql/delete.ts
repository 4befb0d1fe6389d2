import { qualified, quoteIdent } from '../../../src/pg/quote.js';
import { argumentsOf, type CollectedField } from './fields.js';
import { columnValue } from './column-value.js';
import { nextStatement, type MutationContext } from './mutation-context.js';
import { countRows, cteRows, mutationResponse, mutationRow } from './mutation-output.js';
import { step, writeStatement, type MutationFieldPlan } from './mutation-plan.js';
import { and, columnRef } from './sql-text.js';
import { compileWhere, permissionCondition } from './where.js';

/**
 * `delete_<t>(where)` and `delete_<t>_by_pk(<pk columns>)`: only rows passing the delete
 * permission's filter are deleted; `returning` shows the deleted rows as they were.
 */
export function compileDelete(base: MutationContext, field: CollectedField, tableKey: string, byPk: boolean): MutationFieldPlan {
  const context = nextStatement(base);
  const access = context.writes.deletes.get(tableKey)!;
  const readable = context.access.tables.get(tableKey)!;
  const model = access.model;
  const args = argumentsOf(field);
  const alias = context.aliases.fresh();

  const conditions: string[] = [];
  if (access.filter !== null) conditions.push(permissionCondition(context, model, access.filter, alias));
  if (byPk) {
    for (const column of model.primaryKey) conditions.push(`${columnRef(alias, column.name)} = ${columnValue(context, column, args.get(column.fieldName)!)}`);
  } else {
    const where = compileWhere(context, readable, alias, args.get('where')!);
    if (where !== 'true') conditions.push(where);
  }
  const cte = context.aliases.fresh();
  const where = conditions.length === 0 ? '' : ` where ${and(conditions)}`;
  const ctes = [`"${cte}" as (delete from ${qualified(model.table.schema, model.table.name)} as ${quoteIdent(alias)}${where} returning *)`];

  const rows = cteRows(cte);
  const data = byPk ? mutationRow(context, readable, rows, field) : mutationResponse(context, model, readable, rows, countRows(rows, context.aliases.fresh()), field);
  const sql = writeStatement(context, ctes, [['data', `(${data})::text`]]);
  return { responseKey: field.responseKey, errorPath: `${field.path}.args`, steps: [step(context, sql)], list: false, staticJson: null };
}
