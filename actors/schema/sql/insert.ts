import { errors } from '../../../src/errors/errors.js';
import type { ServiceError } from '../../../src/errors/service-error.js';
import { qualified, quoteIdent } from '../../../src/pg/quote.js';
import type { TableModel } from '../models/table-model.js';
import type { InsertAccess } from '../models/write-access.js';
import type { CollectedField } from './fields.js';
import { hasNested, readInsertInput, type InsertInput, type InsertRow } from './insert-rows.js';
import { nextStatement, type MutationContext } from './mutation-context.js';
import { allRows, countRows, cteRows, mutationResponse, mutationRow, type RowsSource } from './mutation-output.js';
import { step, writeStatement, type MutationFieldPlan, type MutationStep } from './mutation-plan.js';
import type { OnConflict } from './on-conflict.js';
import { columnRef } from './sql-text.js';
import { permissionCondition } from './where.js';

/**
 * `insert_<t>(objects, on_conflict)` and `insert_<t>_one(object, on_conflict)`. Rows
 * without nested relationships are one `insert ... values` CTE (a missing column takes
 * its default); the checks and the answer read that CTE in the same statement. Rows with
 * nested relationships are a chain of CTEs per row: the rows this one references first,
 * then the row with their keys, then the rows referencing it with its key.
 */
const INSERTED = '__service_inserted';
/** A nested insert's CTEs also return each row's `ctid`, by which the next statement reads the rows back. */
const CTID = '__service_ctid';

export function compileInsert(base: MutationContext, field: CollectedField, tableKey: string, one: boolean): MutationFieldPlan {
  const context = nextStatement(base);
  const access = context.writes.inserts.get(tableKey)!;
  const input = readInsertInput(context, access, field, one);
  const errorPath = `${field.path}.args.${one ? 'object' : 'objects'}`;
  const steps = hasNested(input.rows) ? nestedSteps(context, access, input, field, one, errorPath) : [flatStep(context, access, input, field, one)];
  return { responseKey: field.responseKey, errorPath, steps, list: false, staticJson: null };
}

function flatStep(context: MutationContext, access: InsertAccess, input: InsertInput, field: CollectedField, one: boolean): MutationStep {
  const model = access.model;
  const cte = context.aliases.fresh();
  const present = new Set(input.rows.flatMap((row) => [...row.values.keys()]));
  let columns = model.columns.filter((column) => present.has(column.name)).map((column) => column.name);
  // `default values` writes one row only; several all-default rows name one column as `default`.
  const first = model.columns.find((column) => !column.generated)!;
  if (columns.length === 0 && input.rows.length !== 1) columns = [first.name];
  const body = input.rows.length === 0
    ? `(${quoteIdent(first.name)}) select null::${first.type.sqlType} where false`
    : columns.length === 0
      ? 'default values'
      : `(${columns.map(quoteIdent).join(', ')}) values ${input.rows.map((row) => `(${columns.map((column) => row.values.get(column) ?? 'default').join(', ')})`).join(', ')}`;
  const ctes = [`"${cte}" as (insert into ${insertTarget(model, input.onConflict)} ${body}${conflictClause(input.onConflict)}${returning(input.onConflict)})`];

  const rows = cteRows(cte);
  const readable = context.access.tables.get(model.key);
  const data = one ? mutationRow(context, readable!, rows, field) : mutationResponse(context, model, readable, rows, countRows(rows, context.aliases.fresh()), field);
  const check = checkCondition(context, access, input.onConflict?.updates ?? false, rows);
  const outputs: Array<[string, string]> = [['data', `(${data})::text`]];
  if (check !== null) outputs.push(['check_ok', check]);
  return step(context, writeStatement(context, ctes, outputs), { checked: check !== null });
}

/** Where a written CTE's rows go, for the counts, the checks and the answer. */
interface WrittenCte {
  name: string;
  access: InsertAccess;
  upsertUpdates: boolean;
  top: boolean;
}

/**
 * A related row that must exist but was not written (its upsert did nothing): Hasura
 * refuses the whole insert rather than leave the row that needs it unwritten. Only a
 * row with an `on_conflict` can go unwritten without an error (a row selected from an
 * unwritten one is flagged through that one), so only those are checked.
 */
interface Unwritten {
  /** A condition true when the CTE wrote no row. */
  condition: string;
  failure: ServiceError;
}

function nestedSteps(context: MutationContext, access: InsertAccess, input: InsertInput, field: CollectedField, one: boolean, errorPath: string): MutationStep[] {
  const ctes: string[] = [];
  const written: WrittenCte[] = [];
  const unwritten: Unwritten[] = [];
  // Hasura reports rows as `object[0]` too: it inserts a single object as a list of one.
  input.rows.forEach((row, index) => rowCte(context, { ctes, written, unwritten }, access, row, input.onConflict, null, true, `${errorPath}[${index}]`));

  // Step 1 writes, and hands on the count and the ctids of the rows the checks and the answer read.
  const union = (list: WrittenCte[], where = '') =>
    list.length === 0 ? `'{}'::tid[]` : `array(${list.map((cte) => `select "${CTID}" from "${cte.name}"${where}`).join(' union all ')})`;
  const outputs: Array<[string, string]> = [
    ['affected', `(${written.map((cte) => `(select count(*) from "${cte.name}")`).join(' + ')})::int`],
    ['top', `${union(written.filter((cte) => cte.top))}::text`],
  ];
  const checks: Array<{ model: TableModel; condition: (read: MutationContext, alias: string) => string; carried: string }> = [];
  const byTable = new Map<string, WrittenCte[]>();
  for (const cte of written) byTable.set(cte.access.model.key, [...(byTable.get(cte.access.model.key) ?? []), cte]);
  for (const list of byTable.values()) {
    const model = list[0]!.access.model;
    const insertCheck = list[0]!.access.check;
    const updateCheck = context.writes.updates.get(model.key)?.check ?? null;
    const upserting = list.filter((cte) => cte.upsertUpdates);
    if (insertCheck !== null) {
      const carried = `c${checks.length}`;
      const inserted = union(list.filter((cte) => !cte.upsertUpdates)) + (upserting.length === 0 ? '' : ` || ${union(upserting, ` where "${INSERTED}"`)}`);
      outputs.push([carried, `(${inserted})::text`]);
      checks.push({ model, condition: (read, alias) => permissionCondition(read, model, insertCheck, alias), carried });
    }
    if (updateCheck !== null && upserting.length > 0) {
      const carried = `c${checks.length}`;
      outputs.push([carried, `${union(upserting, ` where not "${INSERTED}"`)}::text`]);
      checks.push({ model, condition: (read, alias) => permissionCondition(read, model, updateCheck, alias), carried });
    }
  }
  if (unwritten.length > 0) outputs.push(['failure', `case ${unwritten.map((item, index) => `when ${item.condition} then ${index}`).join(' ')} end`]);
  const write = step(context, writeStatement(context, ctes, outputs), { carries: true, failures: unwritten.map((item) => item.failure) });

  // Step 2 reads the written rows back: now every row of step 1 is visible.
  const read = nextStatement(context);
  const top = read.params.add({ kind: 'carried', name: 'top' }, 'tid[]');
  const readable = read.access.tables.get(access.model.key);
  const rows = rowsByCtid(access.model, top);
  const data = one
    ? mutationRow(read, readable!, rows, field)
    : mutationResponse(read, access.model, readable, rows, read.params.add({ kind: 'carried', name: 'affected' }, 'int4'), field);
  const conditions = checks.map((check) => {
    const alias = read.aliases.fresh();
    return allRows(rowsByCtid(check.model, read.params.add({ kind: 'carried', name: check.carried }, 'tid[]')), alias, check.condition(read, alias));
  });
  const columns = [`(${data})::text as "data"`];
  if (conditions.length > 0) columns.push(`${conditions.join(' and ')} as "check_ok"`);
  return [write, step(read, `select ${columns.join(', ')}`, { checked: conditions.length > 0 })];
}

/** What the CTEs of a nested insert collect: the statement's CTEs, what each wrote, what must have been written. */
interface NestedWrites {
  ctes: string[];
  written: WrittenCte[];
  unwritten: Unwritten[];
}

/** Adds the CTEs writing `row` (at `path` of the request) and its nested rows; returns the name of the row's own CTE. */
function rowCte(
  context: MutationContext,
  writes: NestedWrites,
  access: InsertAccess,
  row: InsertRow,
  onConflict: OnConflict | null,
  parent: { cte: string; pairs: ReadonlyArray<readonly [string, string]> } | null,
  top: boolean,
  path: string,
): string {
  const { ctes, written, unwritten } = writes;
  refuseDeterminedColumns(row, parent, path);
  const values = new Map(row.values);
  const sources: string[] = [];
  const link = (cte: string, pairs: ReadonlyArray<readonly [string, string]>) => {
    sources.push(`"${cte}"`);
    for (const [column, from] of pairs) values.set(column, columnRef(cte, from));
  };
  if (parent !== null) link(parent.cte, parent.pairs);
  for (const nested of row.nested) {
    if (nested.relationship.insertOrder !== 'before') continue;
    const name = nested.relationship.name;
    const cte = rowCte(context, writes, nested.access, nested.rows[0]!, nested.onConflict, null, false, `${path}.${name}.data`);
    if (nested.onConflict !== null) unwritten.push({
      condition: `not exists (select from "${cte}")`,
      failure: errors.objectRelationUnwritten(`${path}.${name}`, name, displayName(nested.access.model)),
    });
    link(cte, nested.relationship.mapping);
  }

  const model = access.model;
  const columns = model.columns.filter((column) => values.has(column.name)).map((column) => column.name);
  const list = columns.map(quoteIdent).join(', ');
  const expressions = columns.map((column) => values.get(column)!).join(', ');
  const body = columns.length === 0 ? 'default values' : sources.length === 0 ? `(${list}) values (${expressions})` : `(${list}) select ${expressions} from ${sources.join(', ')}`;
  const name = context.aliases.fresh();
  ctes.push(`"${name}" as (insert into ${insertTarget(model, onConflict)} ${body}${conflictClause(onConflict)}${returning(onConflict)}, "ctid" as "${CTID}")`);
  written.push({ name, access, upsertUpdates: onConflict?.updates ?? false, top });

  const after = row.nested.filter((nested) => nested.relationship.insertOrder === 'after');
  if (after.length > 0 && onConflict !== null) {
    unwritten.push({
      condition: `not exists (select from "${name}")`,
      failure: errors.arrayRelationsUnwritten(path, displayName(model)),
    });
  }
  for (const nested of after) {
    const pairs = nested.relationship.mapping.map(([own, related]) => [related, own] as const);
    const data = `${path}.${nested.relationship.name}.data`;
    nested.rows.forEach((child, index) => rowCte(context, writes, nested.access, child, nested.onConflict, { cte: name, pairs }, false, `${data}[${index}]`));
  }
  return name;
}

/**
 * Hasura's checks before any SQL: a row may not give a column its parent row determines,
 * nor a column an object relationship inserted with it determines.
 */
function refuseDeterminedColumns(row: InsertRow, parent: { pairs: ReadonlyArray<readonly [string, string]> } | null, path: string): void {
  const fromParent = (parent?.pairs ?? []).map(([column]) => column);
  const given = fromParent.filter((column) => row.given.has(column));
  if (given.length > 0) throw errors.columnsDeterminedByParent(path, given);
  for (const nested of row.nested) {
    if (nested.relationship.insertOrder !== 'before') continue;
    const determined = nested.relationship.mapping.map(([own]) => own).filter((column) => row.given.has(column) || fromParent.includes(column));
    if (determined.length > 0) throw errors.objectRelationshipDetermined(`${path}.${nested.relationship.name}`, nested.relationship.name, determined);
  }
}

/** A table as Hasura's messages name it: bare in `public`, `schema.name` elsewhere. */
function displayName(model: TableModel): string {
  return model.table.schema === 'public' ? model.table.name : `${model.table.schema}.${model.table.name}`;
}

function insertTarget(model: TableModel, onConflict: OnConflict | null): string {
  const table = qualified(model.table.schema, model.table.name);
  return onConflict === null ? table : `${table} as ${quoteIdent(onConflict.alias)}`;
}

function conflictClause(onConflict: OnConflict | null): string {
  return onConflict === null ? '' : ` ${onConflict.clause}`;
}

/** Upserts tell inserted rows (`xmax = 0`) from updated ones, which the update check governs. */
function returning(onConflict: OnConflict | null): string {
  return onConflict?.updates === true ? ` returning *, ("xmax" = 0) as "${INSERTED}"` : ' returning *';
}

/** Whether every written row passes its permission check; null when the role's inserts are unchecked. */
function checkCondition(context: MutationContext, access: InsertAccess, upsertUpdates: boolean, rows: RowsSource): string | null {
  const insertCheck = access.check;
  const updateCheck = upsertUpdates ? (context.writes.updates.get(access.model.key)?.check ?? null) : null;
  if (insertCheck === null && updateCheck === null) return null;
  const alias = context.aliases.fresh();
  const inserted = insertCheck === null ? 'true' : permissionCondition(context, access.model, insertCheck, alias);
  if (!upsertUpdates) return allRows(rows, alias, inserted);
  const updated = updateCheck === null ? 'true' : permissionCondition(context, access.model, updateCheck, alias);
  return allRows(rows, alias, `case when ${columnRef(alias, INSERTED)} then ${inserted} else ${updated} end`);
}

/** The rows of `model` whose `ctid` is in the carried array, in the array's order. */
function rowsByCtid(model: TableModel, ctids: string): RowsSource {
  return {
    from: (alias) => `${qualified(model.table.schema, model.table.name)} as ${quoteIdent(alias)}`,
    where: (alias) => `${columnRef(alias, 'ctid')} = any(${ctids})`,
    order: (alias) => `array_position(${ctids}, ${columnRef(alias, 'ctid')})`,
  };
}
