import { errors } from '../../../src/errors/errors.js';
import { findTable, sameTable, withTable, withTables } from '../../../src/metadata/edit.js';
import { withTableAdded } from '../../../src/metadata/table-order.js';
import type { QualifiedName, Relationship, TableConfiguration, TableEntry } from '../../../src/metadata/types.js';
import { relationKey } from '../../../src/pg/catalog.js';
import { displayName, toQualified } from '../../../src/metadata/names.js';
import { duplicatedCustomRootFields } from '../consistency/root-fields.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';
import { checkNamesFree } from './root-names.js';
import { newInconsistencies } from '../consistency/inconsistency.js';
import { assertUsableAsEnum } from './enum-check.js';

type TableArg = QualifiedName | string;

/** The tracked table an operation names, or the `not-exists` error Hasura answers. */
export function trackedTable(context: OperationContext, arg: TableArg, path = `${context.argsPath}.table`): { table: QualifiedName; entry: TableEntry } {
  const table = toQualified(arg);
  const entry = findTable(context.metadata, table);
  if (entry === undefined) throw errors.notExists(path, `table ${JSON.stringify(displayName(table))} does not exist`);
  return { table, entry };
}

async function track(context: OperationContext, table: QualifiedName, configuration: TableConfiguration | undefined, isEnum: boolean | undefined) {
  if (findTable(context.metadata, table) !== undefined) {
    throw errors.alreadyTracked(`${context.argsPath}.table`, `view/table already tracked: ${JSON.stringify(displayName(table))}`);
  }
  if (!context.catalog.relations.has(relationKey(table.schema, table.name))) {
    throw errors.notExists(`${context.argsPath}.table`, `no such table/view exists in source: ${JSON.stringify(displayName(table))}`);
  }
  checkCustomRootFields(context, configuration);
  if (isEnum === true) await assertUsableAsEnum(context, table);
  const entry: TableEntry = { table };
  if (isEnum === true) entry.is_enum = true;
  if (configuration !== undefined && Object.keys(configuration).length > 0) entry.configuration = configuration;
  const metadata = withTables(context.metadata, (tables) => withTableAdded(tables, entry));
  checkNamesFree(context, metadata, { table });
  return { response: SUCCESS, metadata };
}

function checkCustomRootFields(context: OperationContext, configuration: TableConfiguration | undefined): void {
  const duplicated = duplicatedCustomRootFields(configuration);
  if (duplicated !== null) throw errors.parseFailed(`${context.argsPath}.configuration.custom_root_fields`, duplicated);
}

export const trackTable: Operation<{ schema?: string; name?: string; table?: TableArg; is_enum?: boolean }> = {
  type: 'track_table',
  argsSchema: 'query/track_table',
  appliesAhead: true,
  // Hasura's TrackTable also reads the whole args as the table: `args: "author"` is public.author.
  upgradeArgs: (args) => (typeof args === 'string' ? { table: args } : args),
  async run(args, context) {
    if ((args.table === undefined) === (args.name === undefined)) {
      throw errors.parseFailed(context.argsPath, 'give either "table", or "name" with an optional "schema"');
    }
    const table = args.table === undefined ? { schema: args.schema ?? 'public', name: args.name! } : toQualified(args.table);
    return track(context, table, undefined, args.is_enum);
  },
};

/** Hasura's older name of track_table (version 1), with the same arguments. */
export const addExistingTableOrView: typeof trackTable = { ...trackTable, type: 'add_existing_table_or_view' };

export const trackTableV2: Operation<{ table: TableArg; configuration?: TableConfiguration; is_enum?: boolean }> = {
  type: 'track_table',
  version: 2,
  argsSchema: 'query/track_table.v2',
  appliesAhead: true,
  async run(args, context) {
    return track(context, toQualified(args.table), args.configuration, args.is_enum);
  },
};

/**
 * Replaces the table's configuration, as Hasura's set_table_customization does. A
 * configuration that breaks one of the table's objects (a custom column name a
 * relationship holds) is refused in Hasura v2.0's words, the broken objects in `internal`.
 */
async function customize(context: OperationContext, arg: TableArg, configuration: TableConfiguration) {
  const { table } = trackedTable(context, arg);
  checkCustomRootFields(context, configuration);
  const metadata = withTable(context.metadata, table, (entry) => {
    const next: TableEntry = { ...entry };
    if (Object.keys(configuration).length > 0) next.configuration = configuration;
    else delete next.configuration;
    return next;
  });
  checkNamesFree(context, metadata, { table });
  const broken = newInconsistencies(context.inconsistencies, (await context.check(metadata, context.catalog)).inconsistencies);
  if (broken.length > 0) throw errors.newInconsistentMetadata(context.argsPath).withInternal(broken);
  return { response: SUCCESS, metadata };
}

export const setTableCustomization: Operation<{ table: TableArg; configuration: TableConfiguration }> = {
  type: 'set_table_customization',
  argsSchema: 'query/set_table_customization',
  appliesAhead: true,
  async run(args, context) {
    return customize(context, args.table, args.configuration);
  },
};

type CustomFieldsArgs = { table: TableArg } & Pick<TableConfiguration, 'custom_root_fields' | 'custom_column_names'>;

/**
 * Hasura's older set_table_custom_fields (sent as version 1 or 2): the root fields and
 * column names become the table's whole configuration, a custom table name included
 * (Hasura's runSetTableCustomFieldsQV2 leaves none).
 */
export const setTableCustomFields: Operation<CustomFieldsArgs> = {
  type: 'set_table_custom_fields',
  argsSchema: 'query/set_table_custom_fields',
  appliesAhead: true,
  async run(args, context) {
    // Hasura points at the args themselves for an untracked table here.
    trackedTable(context, args.table, context.argsPath);
    const configuration: TableConfiguration = {};
    if (args.custom_root_fields !== undefined && Object.keys(args.custom_root_fields).length > 0) configuration.custom_root_fields = args.custom_root_fields;
    if (args.custom_column_names !== undefined && Object.keys(args.custom_column_names).length > 0) configuration.custom_column_names = args.custom_column_names;
    return customize(context, args.table, configuration);
  },
};

export const setTableCustomFieldsV2: Operation<CustomFieldsArgs> = { ...setTableCustomFields, version: 2 };

/** Makes a tracked table an enum table (its rows the values of `<table>_enum`), or a plain one again. */
export const setTableIsEnum: Operation<{ table: TableArg; is_enum: boolean }> = {
  type: 'set_table_is_enum',
  argsSchema: 'query/set_table_is_enum',
  appliesAhead: true,
  async run(args, context) {
    const { table } = trackedTable(context, args.table);
    if (args.is_enum) await assertUsableAsEnum(context, table);
    const metadata = withTable(context.metadata, table, (entry) => {
      const next: TableEntry = { ...entry };
      if (args.is_enum) next.is_enum = true;
      else delete next.is_enum;
      return next;
    });
    return { response: SUCCESS, metadata };
  },
};

/** The relationships of other tables that point at `table`. */
function relationshipsInto(context: OperationContext, table: QualifiedName): { owner: QualifiedName; name: string }[] {
  const found: { owner: QualifiedName; name: string }[] = [];
  for (const entry of context.metadata.sources[0]!.tables) {
    if (sameTable(entry.table, table)) continue;
    for (const relationship of [...(entry.object_relationships ?? []), ...(entry.array_relationships ?? [])]) {
      if (pointsAt(context, entry.table, relationship, table)) found.push({ owner: entry.table, name: relationship.name });
    }
  }
  return found;
}

function pointsAt(context: OperationContext, owner: QualifiedName, relationship: Relationship, table: QualifiedName): boolean {
  const using = relationship.using;
  if ('manual_configuration' in using) return sameTable(toQualified(using.manual_configuration.remote_table), table);
  const on = using.foreign_key_constraint_on;
  if (typeof on === 'object' && !Array.isArray(on)) return sameTable(toQualified(on.table), table);
  // A key on the owner's own columns: where it points is a catalog fact, not metadata.
  const columns = typeof on === 'string' ? [on] : on;
  const relation = context.catalog.relations.get(relationKey(owner.schema, owner.name));
  const key = relation?.foreignKeys.find((fk) => fk.columns.join() === columns.join());
  return key !== undefined && key.refSchema === table.schema && key.refTable === table.name;
}

export const untrackTable: Operation<{ table: TableArg; cascade?: boolean }> = {
  type: 'untrack_table',
  argsSchema: 'query/untrack_table',
  appliesAhead: true,
  async run(args, context) {
    const table = toQualified(args.table);
    if (findTable(context.metadata, table) === undefined) {
      throw errors.alreadyUntracked(`${context.argsPath}.table`, `view/table already untracked: ${JSON.stringify(displayName(table))}`);
    }
    const dependents = relationshipsInto(context, table);
    if (dependents.length > 0 && args.cascade !== true) {
      const names = dependents.map((dependent) => `relationship ${displayName(dependent.owner)}.${dependent.name}`).join(', ');
      throw errors.dependencyError(context.argsPath, `cannot drop due to the following dependent objects : ${names}`);
    }
    const dropped = new Set(dependents.map((dependent) => JSON.stringify([dependent.owner, dependent.name])));
    // relationshipsInto names each owner by its entry's own `table` object.
    const owners = new Set(dependents.map((dependent) => dependent.owner));
    const keep = (owner: QualifiedName) => (relationship: Relationship) => !dropped.has(JSON.stringify([owner, relationship.name]));
    // Only the tables that lose a relationship become new entries: the checks and role schemas
    // of every other table are kept for as long as its entry is the same object.
    const metadata = withTables(context.metadata, (tables) =>
      tables
        .filter((entry) => !sameTable(entry.table, table))
        .map((entry) =>
          !owners.has(entry.table)
            ? entry
            : {
                ...entry,
                ...(entry.object_relationships ? { object_relationships: entry.object_relationships.filter(keep(entry.table)) } : {}),
                ...(entry.array_relationships ? { array_relationships: entry.array_relationships.filter(keep(entry.table)) } : {}),
              },
        ),
    );
    return { response: SUCCESS, metadata };
  },
};
