import { RawJson } from '../../../../src/bus/raw-json.js';
import { errors } from '../../../../src/errors/errors.js';
import { quoted } from '../../../../src/metadata/names.js';
import { qualified, quoteIdent } from '../../../../src/pg/quote.js';
import type { ColumnModel } from '../../models/table-model.js';
import type { InsertAccess, UpdateAccess } from '../../models/write-access.js';
import { columnValue } from '../../sql/column-value.js';
import { permissionInput } from '../../sql/input.js';
import type { MutationContext } from '../../sql/mutation-context.js';
import { permissionCondition } from '../../sql/where.js';
import type { Operation } from '../operation.js';
import { dataAccess, notAllowed, permittedColumn, trackedTable, type DataAccess, type TableArg } from './access.js';
import { mutationSql, UPSERT_INSERTED } from './mutation-result.js';
import { argInput, runStatement, statementContext } from './statement.js';

export interface OnConflictArg {
  action: 'ignore' | 'update';
  constraint?: string;
  constraint_on?: string[];
}

export interface InsertArgs {
  table: TableArg;
  objects: Record<string, unknown>[];
  returning?: string[];
  on_conflict?: OnConflictArg;
}

/**
 * `insert` (RQL/DML/Insert.hs): writes `objects` in one statement. A column the request
 * leaves out of an object takes its default; the permission's presets are set whatever
 * the request says; its check must hold for every written row, as `insert_<t>` does.
 * `on_conflict` needs an update permission, as an upsert does in GraphQL.
 */
export const insertRows: Operation<InsertArgs> = {
  type: 'insert',
  argsSchema: 'query/insert',
  dataApi: true,
  async run(args, context) {
    const access = dataAccess(context);
    const path = context.argsPath;
    const table = trackedTable(access, args.table, `${path}.table`);
    const permission = access.writes.inserts.get(table.key) ?? notAllowed(access, 'insert', table, path);
    if (args.objects.length === 0) throw errors.dataUnexpectedPayload(`${path}.objects`, 'objects should not be empty');
    const statement = statementContext(access, context.metadata);
    const alias = statement.aliases.fresh();
    const columns = insertedColumns(access, permission, args.objects, `${path}.objects`);
    const rows = args.objects.map((object, index) => `(${rowValues(statement, permission, columns, object, `${path}.objects[${index}]`).join(', ')})`);
    const target = `${qualified(table.table.schema, table.table.name)} as ${quoteIdent(alias)}`;
    const conflict = args.on_conflict === undefined ? null : onConflictClause(statement, access, permission, columns, alias, args.on_conflict, `${path}.on_conflict`);
    if (columns.length === 0 && args.objects.length > 1) throw errors.notSupported(`${path}.objects`, 'several objects without any column cannot be inserted in one statement');
    const values = columns.length === 0 ? 'default values' : `(${columns.map((column) => quoteIdent(column.name)).join(', ')}) values ${rows.join(', ')}`;
    const returning = conflict?.update === undefined ? 'returning *' : `returning *, ("xmax" = 0) as ${quoteIdent(UPSERT_INSERTED)}`;
    const write = `insert into ${target} ${values}${conflict?.clause ?? ''} ${returning}`;
    const mutation = { table, cte: statement.aliases.fresh(), write, returning: args.returning, check: permission.check };
    const sql = mutationSql(statement, access, conflict?.update === undefined ? mutation : { ...mutation, updateCheck: conflict.update.check }, path);
    const row = await runStatement(context, statement, sql);
    if (row.check_ok === false) throw errors.dataCheckFailed(path);
    return { response: new RawJson(row.json) };
  },
};

/**
 * The columns any object names, then the preset ones, in that order. Each named column is
 * checked as Hasura's Insert.hs checks it, errors pointing at the object: it exists, it is
 * not preset (its value is the permission's), and the role may insert it.
 */
function insertedColumns(access: DataAccess, permission: InsertAccess, objects: Record<string, unknown>[], path: string): ColumnModel[] {
  const permitted = new Map(permission.columns.map((column) => [column.name, column]));
  const columns = new Map<string, ColumnModel>();
  objects.forEach((object, index) => {
    const objectPath = `${path}[${index}]`;
    for (const name of Object.keys(object)) {
      if (columns.has(name)) continue;
      if (!permission.model.columnsByName.has(name)) throw errors.notExists(objectPath, `column ${JSON.stringify(name)} does not exist`);
      if (permission.presets.has(name)) throw errors.notSupported(objectPath, `column ${JSON.stringify(name)} is not insertable for role ${JSON.stringify(access.read.role)}`);
      columns.set(name, permittedColumn(access, permitted, 'insert', name, objectPath));
    }
  });
  for (const name of permission.presets.keys()) {
    const column = permission.model.columnsByName.get(name);
    if (column !== undefined) columns.set(name, column);
  }
  return [...columns.values()];
}

function rowValues(statement: MutationContext, permission: InsertAccess, columns: ColumnModel[], object: Record<string, unknown>, path: string): string[] {
  return columns.map((column) => {
    if (permission.presets.has(column.name)) return columnValue(statement, column, permissionInput(permission.presets.get(column.name), `$.set.${column.name}`));
    if (!Object.hasOwn(object, column.name)) return 'default';
    return columnValue(statement, column, argInput(object[column.name], `${path}.${column.name}`));
  });
}

/**
 * `on conflict` (Insert.hs `buildConflictClause`): `ignore` does nothing; `update` sets
 * the columns the objects name that the role may update, and the update permission's
 * presets, on rows its filter lets in, as GraphQL's upsert: a role may upsert only with
 * an update permission, and the rows it updates must pass that permission's check. The
 * target is a unique or primary key constraint by name, or its columns; `update` needs one.
 */
function onConflictClause(
  statement: MutationContext,
  access: DataAccess,
  permission: InsertAccess,
  columns: ColumnModel[],
  alias: string,
  conflict: OnConflictArg,
  path: string,
): { clause: string; update?: UpdateAccess } {
  const table = permission.model;
  const update = access.writes.updates.get(table.key);
  if (update === undefined) throw errors.permissionDenied(path, `upsert is not allowed for role ${JSON.stringify(access.read.role)}`);
  if (conflict.constraint !== undefined && conflict.constraint_on !== undefined) throw errors.dataUnexpectedPayload(path, "'constraint' and 'constraint_on' cannot be set at a time");
  let target = '';
  if (conflict.constraint !== undefined) {
    if (!table.uniqueConstraints.some((constraint) => constraint.name === conflict.constraint)) {
      throw errors.dataUnexpected(`${path}.constraint`, `constraint ${JSON.stringify(conflict.constraint)} for table ${quoted(table.table)} does not exist`);
    }
    target = ` on constraint ${quoteIdent(conflict.constraint)}`;
  } else if (conflict.constraint_on !== undefined) {
    // Only the columns the role may write name a target: any other is answered as missing, so hidden columns cannot be probed.
    const writable = new Set([...columns, ...update.columns].map((column) => column.name));
    target = ` (${conflict.constraint_on.map((name, index) => {
      if (!writable.has(name)) throw errors.notExists(`${path}.constraint_on[${index}]`, `column ${JSON.stringify(name)} does not exist`);
      return quoteIdent(name);
    }).join(', ')})`;
  }
  if (conflict.action === 'ignore') return { clause: ` on conflict${target} do nothing` };
  if (target === '') throw errors.dataUnexpectedPayload(path, "Expecting 'constraint' or 'constraint_on' when the 'action' is 'update'");
  const updatable = new Set(update.columns.map((column) => column.name));
  // A column the update permission presets is set once, to the preset.
  const named = columns.filter((column) => updatable.has(column.name) && !permission.presets.has(column.name) && !update.presets.has(column.name));
  if (named.length === 0) return { clause: ` on conflict${target} do nothing` };
  const sets = named.map((column) => `${quoteIdent(column.name)} = excluded.${quoteIdent(column.name)}`);
  for (const [name, preset] of update.presets) {
    const column = table.columnsByName.get(name);
    if (column !== undefined) sets.push(`${quoteIdent(name)} = ${columnValue(statement, column, permissionInput(preset, `$.set.${name}`))}`);
  }
  const where = update.filter === null ? '' : ` where ${permissionCondition(statement, table, update.filter, alias)}`;
  return { clause: ` on conflict${target} do update set ${sets.join(', ')}${where}`, update };
}
