import { errors } from '../../../src/errors/errors.js';
import type { RelationshipModel } from '../models/table-model.js';
import type { InsertAccess } from '../models/write-access.js';
import { mutationTypeNames } from '../models/mutation-names.js';
import type { MutationContext } from './mutation-context.js';
import { argumentsOf, type CollectedField } from './fields.js';
import { permissionInput, type Input } from './input.js';
import { columnValue } from './column-value.js';
import { compileOnConflict, type OnConflict } from './on-conflict.js';

/**
 * The rows an insert writes, read from `<t>_insert_input` objects: each column's value
 * as an SQL expression (a parameter), presets applied over what the client sent, and the
 * rows of nested relationships to write with it. Presets override: a preset column is
 * not even in the role's input type, and is set here whatever the client sent.
 */
export interface InsertRow {
  /** SQL value by column name. */
  values: Map<string, string>;
  /** The columns the client gave (presets aside). */
  given: ReadonlySet<string>;
  nested: NestedInsert[];
}

export interface NestedInsert {
  relationship: RelationshipModel;
  access: InsertAccess;
  rows: InsertRow[];
  onConflict: OnConflict | null;
}

export interface InsertInput {
  rows: InsertRow[];
  onConflict: OnConflict | null;
}

/** Reads `objects` (or `object`) and `on_conflict` of an insert root field. */
export function readInsertInput(context: MutationContext, access: InsertAccess, field: CollectedField, one: boolean): InsertInput {
  const args = argumentsOf(field);
  const data = args.get(one ? 'object' : 'objects')!;
  const items = one ? [data] : context.reader.items(data);
  const rows = items.map((item) => readRow(context, access, item));
  const conflictInput = args.get('on_conflict');
  const conflict = conflictInput === undefined || context.reader.isNull(conflictInput) ? null : compileOnConflict(context, access.model.key, conflictInput);
  return { rows, onConflict: conflict };
}

function readRow(context: MutationContext, access: InsertAccess, input: Input): InsertRow {
  const { reader } = context;
  const values = new Map<string, string>();
  const nested: NestedInsert[] = [];
  for (const [key, value] of reader.fields(input)) {
    const column = access.columnsByField.get(key);
    if (column !== undefined) {
      values.set(column.name, columnValue(context, column, value));
      continue;
    }
    const relationship = access.relationships.find((candidate) => candidate.name === key);
    if (relationship === undefined) {
      throw errors.fieldNotFound(value.path, key, mutationTypeNames.insertInput(access.model.typeName));
    }
    if (reader.isNull(value)) continue;
    nested.push(readNested(context, relationship, value));
  }
  const given = new Set(values.keys());
  for (const [name, preset] of access.presets) {
    const column = access.model.columnsByName.get(name);
    if (column !== undefined) values.set(name, columnValue(context, column, permissionInput(preset, `$.set.${name}`)));
  }
  return { values, given, nested };
}

function readNested(context: MutationContext, relationship: RelationshipModel, input: Input): NestedInsert {
  const { reader } = context;
  const access = context.writes.inserts.get(relationship.target)!;
  const fields = new Map(reader.fields(input));
  const data = fields.get('data')!;
  const items = relationship.kind === 'object' ? [data] : reader.items(data);
  const conflictInput = fields.get('on_conflict');
  const conflict = conflictInput === undefined || reader.isNull(conflictInput) ? null : compileOnConflict(context, access.model.key, conflictInput);
  return { relationship, access, rows: items.map((item) => readRow(context, access, item)), onConflict: conflict };
}

/** Whether any row writes related rows too. */
export function hasNested(rows: readonly InsertRow[]): boolean {
  return rows.some((row) => row.nested.length > 0);
}
