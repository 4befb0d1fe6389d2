import { errors } from '../../../src/errors/errors.js';
import { quoteIdent } from '../../../src/pg/quote.js';
import type { MutationContext } from './mutation-context.js';
import type { Input } from './input.js';
import { columnValue } from './column-value.js';
import { permissionInput } from './input.js';
import { and } from './sql-text.js';
import { compileWhere, permissionCondition } from './where.js';

/**
 * `on_conflict {constraint, update_columns, where}` as an `on conflict` clause. The
 * columns an upsert may overwrite are the role's updatable columns (the enum of
 * `update_columns` offers no other), the update permission's presets are applied and its
 * filter guards the existing row, so an upsert can change no more than an update could.
 * The clause refers to the existing row as `alias`, the insert target's alias.
 */
export interface OnConflict {
  alias: string;
  clause: string;
  /** Whether a conflicting row is updated (else `do nothing`). */
  updates: boolean;
}

export function compileOnConflict(context: MutationContext, tableKey: string, input: Input): OnConflict {
  const { reader } = context;
  const update = context.writes.updates.get(tableKey);
  const fields = new Map(reader.fields(input));
  if (update === undefined) throw errors.onConflictNotAllowed(input.path);
  const model = update.model;
  const constraintName = reader.name(fields.get('constraint')!);
  if (!model.uniqueConstraints.some((constraint) => constraint.name === constraintName)) {
    throw errors.constraintNotFound(`${input.path}.constraint`, constraintName);
  }
  const columnsInput = fields.get('update_columns');
  const columns = columnsInput === undefined || reader.isNull(columnsInput)
    ? []
    : reader.items(columnsInput).map((item) => {
        const name = reader.name(item);
        const column = update.columnsByField.get(name);
        if (column === undefined) throw errors.columnNotUpdatable(item.path, name);
        return column;
      });
  const alias = context.aliases.fresh();
  const target = `on conflict on constraint ${quoteIdent(constraintName)}`;
  if (columns.length === 0) return { alias, clause: `${target} do nothing`, updates: false };

  const sets = columns.map((column) => `${quoteIdent(column.name)} = excluded.${quoteIdent(column.name)}`);
  for (const [name, preset] of update.presets) {
    const column = model.columnsByName.get(name);
    if (column !== undefined) sets.push(`${quoteIdent(name)} = ${columnValue(context, column, permissionInput(preset, `$.set.${name}`))}`);
  }
  const conditions: string[] = [];
  if (update.filter !== null) conditions.push(permissionCondition(context, model, update.filter, alias));
  const whereInput = fields.get('where');
  const readable = context.access.tables.get(tableKey);
  if (whereInput !== undefined && !reader.isNull(whereInput) && readable !== undefined) {
    const condition = compileWhere(context, readable, alias, whereInput);
    if (condition !== 'true') conditions.push(condition);
  }
  const where = conditions.length === 0 ? '' : ` where ${and(conditions)}`;
  return { alias, clause: `${target} do update set ${sets.join(', ')}${where}`, updates: true };
}
