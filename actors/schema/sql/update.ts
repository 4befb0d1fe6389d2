import { errors } from '../../../src/errors/errors.js';
import { qualified, quoteIdent } from '../../../src/pg/quote.js';
import type { ColumnModel } from '../models/table-model.js';
import type { UpdateAccess } from '../models/write-access.js';
import { UPDATE_OPERATORS, type UpdateOperator } from '../models/mutation-names.js';
import { invariant } from '../../../src/errors/service-error.js';
import { argumentsOf, type CollectedField } from './fields.js';
import { columnValue } from './column-value.js';
import { permissionInput, type Input } from './input.js';
import { nextStatement, type MutationContext } from './mutation-context.js';
import { allRows, countRows, cteRows, mutationResponse, mutationRow } from './mutation-output.js';
import { step, writeStatement, type MutationFieldPlan, type MutationStep } from './mutation-plan.js';
import { and, columnRef } from './sql-text.js';
import { compileWhere, permissionCondition } from './where.js';

/**
 * `update_<t>(where, _set, _inc, ...)`, `update_<t>_by_pk(pk_columns, ...)` and
 * `update_<t>_many(updates)`. Only rows passing the update permission's filter are
 * touched; the permission's presets are set whatever the client sent; its check is
 * evaluated on the rows as updated, in the same statement.
 */
export function compileUpdate(base: MutationContext, field: CollectedField, tableKey: string, byPk: boolean): MutationFieldPlan {
  const context = nextStatement(base);
  const args = argumentsOf(field);
  const update = context.writes.updates.get(tableKey)!;
  const selection = byPk ? pkSelection(context, update, args.get('pk_columns')!) : whereSelection(context, tableKey, args.get('where')!);
  const updateStep = compileUpdateStep(context, update, args, selection, field, byPk, `${field.path}.args`);
  return { responseKey: field.responseKey, errorPath: `${field.path}.args`, steps: [updateStep], list: false, staticJson: null };
}

/** Each update of `update_<t>_many` is its own statement, so each sees the rows as the ones before it left them. */
export function compileUpdateMany(base: MutationContext, field: CollectedField, tableKey: string): MutationFieldPlan {
  const update = base.writes.updates.get(tableKey)!;
  const updates = base.reader.items(argumentsOf(field).get('updates')!);
  const steps = updates.map((item) => {
    const context = nextStatement(base);
    const args = new Map(context.reader.fields(item));
    const where = args.get('where');
    invariant(where !== undefined, 'validated updates have where');
    return compileUpdateStep(context, update, args, whereSelection(context, tableKey, where), field, false, item.path);
  });
  return { responseKey: field.responseKey, errorPath: `${field.path}.args.updates`, steps, list: true, staticJson: null };
}

/** The condition choosing the rows, on the update target's alias. */
type Selection = (alias: string) => string;

function whereSelection(context: MutationContext, tableKey: string, where: Input): Selection {
  return (alias) => compileWhere(context, context.access.tables.get(tableKey)!, alias, where);
}

function pkSelection(context: MutationContext, update: UpdateAccess, input: Input): Selection {
  const fields = new Map(context.reader.fields(input));
  return (alias) => and(update.model.primaryKey.map((column) => `${columnRef(alias, column.name)} = ${columnValue(context, column, fields.get(column.fieldName)!)}`));
}

function compileUpdateStep(
  context: MutationContext,
  update: UpdateAccess,
  args: Map<string, Input>,
  selection: Selection,
  field: CollectedField,
  one: boolean,
  argsPath: string,
): MutationStep {
  const model = update.model;
  const alias = context.aliases.fresh();
  const sets = setClauses(context, update, args, alias, argsPath);
  const conditions: string[] = [];
  if (update.filter !== null) conditions.push(permissionCondition(context, model, update.filter, alias));
  const chosen = selection(alias);
  if (chosen !== 'true') conditions.push(chosen);
  const where = conditions.length === 0 ? '' : ` where ${and(conditions)}`;
  const cte = context.aliases.fresh();
  const ctes = [`"${cte}" as (update ${qualified(model.table.schema, model.table.name)} as ${quoteIdent(alias)} set ${sets.join(', ')}${where} returning *)`];

  const rows = cteRows(cte);
  const readable = context.access.tables.get(model.key);
  const data = one ? mutationRow(context, readable!, rows, field) : mutationResponse(context, model, readable, rows, countRows(rows, context.aliases.fresh()), field);
  const outputs: Array<[string, string]> = [['data', `(${data})::text`]];
  if (update.check !== null) {
    const checkAlias = context.aliases.fresh();
    outputs.push(['check_ok', allRows(rows, checkAlias, permissionCondition(context, model, update.check, checkAlias))]);
  }
  return step(context, writeStatement(context, ctes, outputs), { checked: update.check !== null });
}

/** `"column" = <new value>` for every column an operator or a preset changes. */
function setClauses(context: MutationContext, update: UpdateAccess, args: Map<string, Input>, alias: string, argsPath: string): string[] {
  const { reader } = context;
  const changes = new Map<string, { column: ColumnModel; operator: UpdateOperator; value: string }>();
  for (const operator of UPDATE_OPERATORS) {
    const input = args.get(operator);
    if (input === undefined || reader.isNull(input)) continue;
    for (const [name, value] of reader.fields(input)) {
      const column = update.columnsByField.get(name);
      if (column === undefined) throw errors.fieldNotFound(value.path, name, `${update.model.typeName}${operator}_input`);
      const earlier = changes.get(column.name);
      if (earlier !== undefined) {
        throw errors.columnInTwoUpdateOperators(argsPath, column.fieldName, earlier.operator, operator);
      }
      changes.set(column.name, { column, operator, value: operatorValue(context, column, operator, value, alias) });
    }
  }
  for (const [name, preset] of update.presets) {
    const column = update.model.columnsByName.get(name);
    if (column !== undefined) changes.set(name, { column, operator: '_set', value: columnValue(context, column, permissionInput(preset, `$.set.${name}`)) });
  }
  if (changes.size === 0) {
    throw errors.updateOperatorRequired(argsPath, UPDATE_OPERATORS.join(', '));
  }
  return [...changes.values()].map(({ column, value }) => `${quoteIdent(column.name)} = ${value}`);
}

function operatorValue(context: MutationContext, column: ColumnModel, operator: UpdateOperator, input: Input, alias: string): string {
  const current = columnRef(alias, column.name);
  const param = (sqlType: string, typeName: string) => context.reader.param(input, context.params, sqlType, 'plain', typeName);
  switch (operator) {
    case '_set':
      return columnValue(context, column, input);
    case '_inc':
      return `${current} + ${columnValue(context, column, input)}`;
    case '_append':
      return `${current} || ${columnValue(context, column, input)}`;
    case '_prepend':
      return `${columnValue(context, column, input)} || ${current}`;
    case '_delete_key':
      return `${current} - ${param('text', 'String')}`;
    case '_delete_elem':
      return `${current} - ${param('int4', 'Int')}`;
    case '_delete_at_path':
      return `${current} #- ${param('text[]', '[String!]')}`;
  }
}
