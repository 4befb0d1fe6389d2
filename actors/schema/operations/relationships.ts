import { errors } from '../../../src/errors/errors.js';
import { withTable } from '../../../src/metadata/edit.js';
import type { ForeignKeyOn, QualifiedName, Relationship, TableEntry } from '../../../src/metadata/types.js';
import { canonicalRelationship } from '../../../src/metadata/foreign-key-forms.js';
import { relationKey } from '../../../src/pg/catalog.js';
import { columnWithCustomName, displayName } from '../../../src/metadata/names.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';
import { trackedTable } from './tables.js';

type TableArg = QualifiedName | string;
type Kind = 'object_relationships' | 'array_relationships';

interface CreateArgs {
  table: TableArg;
  name: string;
  using: Relationship['using'];
  comment?: string | null;
}

/** Names a relationship may not take: the table's columns, their custom names and its other fields. */
function assertNameFree(context: OperationContext, table: QualifiedName, entry: TableEntry, name: string, path: string): void {
  const relation = context.catalog.relations.get(relationKey(table.schema, table.name));
  const taken =
    relation?.columns.some((column) => column.name === name) ||
    [...(entry.object_relationships ?? []), ...(entry.array_relationships ?? []), ...(entry.computed_fields ?? [])].some((field) => field.name === name);
  if (taken) throw errors.alreadyExists(path, `field with name ${JSON.stringify(name)} already exists in table ${JSON.stringify(displayName(table))}`);
  if (columnWithCustomName(entry.configuration, relation?.columns.map((column) => column.name) ?? [], name) !== undefined) {
    throw errors.alreadyExists(context.argsPath, `custom column name ${JSON.stringify(name)} of table ${JSON.stringify(displayName(table))} already exists`);
  }
}

function isOtherTablesKey(on: ForeignKeyOn['foreign_key_constraint_on']): boolean {
  return typeof on === 'object' && !Array.isArray(on);
}

function createRelationship(type: string, kind: Kind): Operation<CreateArgs> {
  return {
    type,
    argsSchema: `query/${type}`,
    appliesAhead: true,
    upgradeArgs: canonicalRelationship,
    async run(args, context) {
      const { table, entry } = trackedTable(context, args.table);
      assertNameFree(context, table, entry, args.name, `${context.argsPath}.name`);
      if (kind === 'array_relationships' && 'foreign_key_constraint_on' in args.using && !isOtherTablesKey(args.using.foreign_key_constraint_on)) {
        throw errors.parseFailed(`${context.argsPath}.using.foreign_key_constraint_on`, 'an array relationship needs the other table: {"table": ..., "column": ...}');
      }
      const relationship: Relationship = { name: args.name, using: args.using };
      if (args.comment != null) relationship.comment = args.comment;
      const metadata = withTable(context.metadata, table, (current) => ({ ...current, [kind]: [...(current[kind] ?? []), relationship] }));
      return { response: SUCCESS, metadata };
    },
  };
}

export const createObjectRelationship = createRelationship('create_object_relationship', 'object_relationships');
export const createArrayRelationship = createRelationship('create_array_relationship', 'array_relationships');

function relationshipKind(entry: TableEntry, name: string): Kind | undefined {
  if (entry.object_relationships?.some((relationship) => relationship.name === name)) return 'object_relationships';
  if (entry.array_relationships?.some((relationship) => relationship.name === name)) return 'array_relationships';
  return undefined;
}

function missingRelationship(path: string, name: string, table: QualifiedName) {
  return errors.notExists(path, `relationship ${JSON.stringify(name)} does not exist in table ${JSON.stringify(displayName(table))}`);
}

export const dropRelationship: Operation<{ table: TableArg; relationship: string; cascade?: boolean }> = {
  type: 'drop_relationship',
  argsSchema: 'query/drop_relationship',
  appliesAhead: true,
  async run(args, context) {
    const { table, entry } = trackedTable(context, args.table);
    const kind = relationshipKind(entry, args.relationship);
    if (kind === undefined) throw missingRelationship(`${context.argsPath}.relationship`, args.relationship, table);
    const metadata = withTable(context.metadata, table, (current) => ({
      ...current,
      [kind]: (current[kind] ?? []).filter((relationship) => relationship.name !== args.relationship),
    }));
    return { response: SUCCESS, metadata };
  },
};

export const renameRelationship: Operation<{ table: TableArg; name: string; new_name: string }> = {
  type: 'rename_relationship',
  argsSchema: 'query/rename_relationship',
  appliesAhead: true,
  async run(args, context) {
    const { table, entry } = trackedTable(context, args.table);
    const kind = relationshipKind(entry, args.name);
    if (kind === undefined) throw missingRelationship(`${context.argsPath}.name`, args.name, table);
    assertNameFree(context, table, entry, args.new_name, `${context.argsPath}.new_name`);
    const metadata = withTable(context.metadata, table, (current) => ({
      ...current,
      [kind]: (current[kind] ?? []).map((relationship) => (relationship.name === args.name ? { ...relationship, name: args.new_name } : relationship)),
    }));
    return { response: SUCCESS, metadata };
  },
};
