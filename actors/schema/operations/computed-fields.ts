import { errors } from '../../../src/errors/errors.js';
import { withTable } from '../../../src/metadata/edit.js';
import type { ComputedField, QualifiedName, TableEntry } from '../../../src/metadata/types.js';
import { relationKey } from '../../../src/pg/catalog.js';
import { describeComputedField } from '../../../src/functions/rules/computed-field-rules.js';
import { gatherFunctionFacts, trackedKeysOf } from '../../../src/functions/facts.js';
import { displayName, quoted } from '../../../src/metadata/names.js';
import { permissionsUsing, withoutPermissions } from './computed-field-dependents.js';
import { toFunctionName } from './functions.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';
import { trackedTable } from './tables.js';

/**
 * add_computed_field and drop_computed_field (interface 2.5; compat-facts 6.1, 6.3).
 * The function rules (src/functions) judge the field's function against the catalog; a select
 * permission that lists the field keeps it from being dropped unless `cascade`.
 */
type TableArg = QualifiedName | string;

interface AddArgs {
  table: TableArg;
  name: string;
  definition: { function: QualifiedName | { schema?: string; name: string } | string; table_argument?: string | null; session_argument?: string | null };
  comment?: string | null;
}

export const addComputedField: Operation<AddArgs> = {
  type: 'add_computed_field',
  argsSchema: 'query/add_computed_field',
  async run(args, context) {
    const { table, entry } = trackedTable(context, args.table);
    if ((entry.computed_fields ?? []).some((field) => field.name === args.name)) {
      throw errors.alreadyExists(`${context.argsPath}.name`, `computed field ${JSON.stringify(args.name)} already exists in table ${quoted(table)}`);
    }
    const field: ComputedField = { name: args.name, definition: { function: toFunctionName(args.definition.function) } };
    if (args.definition.table_argument != null) field.definition.table_argument = args.definition.table_argument;
    if (args.definition.session_argument != null) field.definition.session_argument = args.definition.session_argument;
    if (args.comment != null) field.comment = args.comment;

    judge(context, table, field);
    const metadata = withTable(context.metadata, table, (current) => ({ ...current, computed_fields: [...(current.computed_fields ?? []), field] }));
    return { response: SUCCESS, metadata };
  },
};

function judge(context: OperationContext, table: QualifiedName, field: ComputedField): void {
  const relation = context.catalog.relations.get(relationKey(table.schema, table.name));
  const columns = relation?.columns.map((column) => column.name) ?? [];
  const facts = gatherFunctionFacts(context.catalog, toFunctionName(field.definition.function), trackedKeysOf(context.metadata.sources[0]?.tables ?? []));
  const verdict = describeComputedField({ table, columns, field }, facts);
  if (verdict.ok) return;
  const inconsistent = { type: 'computed_field', definition: { ...field, source: 'default', table }, reason: verdict.reason };
  throw errors.invalidConfiguration(context.argsPath, verdict.reason).withInternal([inconsistent]);
}

export const dropComputedField: Operation<{ table: TableArg; name: string; cascade?: boolean }> = {
  type: 'drop_computed_field',
  argsSchema: 'query/drop_computed_field',
  async run(args, context) {
    const { table, entry } = trackedTable(context, args.table);
    if (!(entry.computed_fields ?? []).some((field) => field.name === args.name)) {
      throw errors.notExists(`${context.argsPath}.name`, `computed field ${JSON.stringify(args.name)} does not exist`);
    }
    const dependents = permissionsUsing(entry, args.name);
    if (dependents.length > 0 && args.cascade !== true) {
      const names = dependents.map((item) => `permission ${displayName(table)}.${item.role}.${item.kind}`).join(', ');
      throw errors.dependencyError(context.argsPath, `cannot drop due to the following dependent objects : ${names}`);
    }
    // Hasura's cascade drops the permissions that need the field.
    const metadata = withTable(context.metadata, table, (current): TableEntry => ({
      ...withoutPermissions(current, dependents),
      computed_fields: (current.computed_fields ?? []).filter((field) => field.name !== args.name),
    }));
    return { response: SUCCESS, metadata };
  },
};
