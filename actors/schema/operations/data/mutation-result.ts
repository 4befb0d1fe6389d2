import type { BoolExp } from '../../../../src/metadata/types.js';
import type { TableModel } from '../../models/table-model.js';
import type { TableAccess } from '../../models/role-access.js';
import type { MutationContext } from '../../sql/mutation-context.js';
import { writeStatement } from '../../sql/mutation-plan.js';
import { columnRef, jsonObject } from '../../sql/sql-text.js';
import { permissionCondition, redactedView } from '../../sql/where.js';
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
  /** `<write> returning *` (and, for an upsert that updates, `UPSERT_INSERTED`). */
  write: string;
  returning: string[] | undefined;
  check: BoolExp | null;
  /** An upsert that updates: the update permission's check, which governs the rows it updated. */
  updateCheck?: BoolExp | null;
}

/** The column an updating upsert adds to its rows: whether the row was inserted (`xmax = 0`) rather than updated. */
export const UPSERT_INSERTED = '__service_inserted';

export function mutationSql(statement: MutationContext, access: DataAccess, mutation: MutationStatement, argsPath: string): string {
  const rows = `"${mutation.cte}"`;
  const pairs: Array<[string, string]> = [['affected_rows', `(select count(*) from ${rows})`]];
  if (mutation.returning !== undefined) {
    const readable = readableTable(access, mutation.table, argsPath, '; "returning" can only be used if the role has "select" permission on the table');
    const alias = statement.aliases.fresh();
    const object = rowObject(statement, access, readable, alias, mutation.returning, `${argsPath}.returning`);
    pairs.push(['returning', `(select coalesce(json_agg(${object}), '[]') from ${returnedRows(statement, readable, mutation, rows, alias)})`]);
  }
  const outputs: Array<[string, string]> = [['json', `${jsonObject(pairs)}::text`]];
  const check = checkCondition(statement, mutation, statement.aliases.fresh());
  if (check !== null) outputs.push(['check_ok', `(select bool_and(${check.condition}) from ${rows} as "${check.alias}")`]);
  return writeStatement(statement, [`${rows} as (${mutation.write})`], outputs);
}

/**
 * The written rows the role may read under `alias`; for an inherited role that sees some
 * columns on part of its rows, read raw and seen through their redacted columns (sql/redaction.ts).
 */
function returnedRows(statement: MutationContext, readable: TableAccess, mutation: MutationStatement, rows: string, alias: string): string {
  if (readable.redacted === null) {
    const filter = readable.filter === null ? 'true' : permissionCondition(statement, mutation.table, readable.filter, alias);
    return `${rows} as "${alias}" where ${filter}`;
  }
  const raw = statement.aliases.fresh();
  const view = redactedView(statement, readable, raw);
  return `${rows} as "${raw}" cross join lateral (select ${view.columns}) as "${alias}" where ${view.filter ?? 'true'}`;
}

/** Whether a written row passes its check: an upsert's updated rows the update permission's, as GraphQL's upsert. */
function checkCondition(statement: MutationContext, mutation: MutationStatement, alias: string): { alias: string; condition: string } | null {
  const { check, updateCheck } = mutation;
  if (check === null && (updateCheck === undefined || updateCheck === null)) return null;
  const inserted = check === null ? 'true' : permissionCondition(statement, mutation.table, check, alias);
  if (updateCheck === undefined) return { alias, condition: inserted };
  const updated = updateCheck === null ? 'true' : permissionCondition(statement, mutation.table, updateCheck, alias);
  return { alias, condition: `case when ${columnRef(alias, UPSERT_INSERTED)} then ${inserted} else ${updated} end` };
}
