import { sameTable } from '../../../src/metadata/edit.js';
import { columnWithCustomName, displayName, toQualified } from '../../../src/metadata/names.js';
import type { Metadata, QualifiedName, Relationship, TableEntry } from '../../../src/metadata/types.js';
import { relationKey, type Catalog, type CatalogRelation } from '../../../src/pg/catalog.js';
import { enumTableProblems, enumTableReason, NO_ENUM_ROWS, type EnumTableRows } from '../models/enum-tables.js';
import { buildSourceModel } from '../models/table-model.js';
import { KeptOutcomes, type EntryOutcome } from './kept-outcomes.js';
import { CheckedEntries, enumBasis, permissionBasis, type PermissionsOutcome } from './permission-outcomes.js';
import { selectPermissionProblem, type PermissionProblem } from './select-permission-check.js';
import { PermissionCheckMemo } from './permission-check-memo.js';
import { withFunctionsChecked } from './functions-check.js';
import { NO_REMOTE_FACTS, type RemoteFacts } from '../remote/descriptions.js';
import { withRemoteSchemasChecked } from './remote-schemas.js';
import type { InconsistentObject } from './inconsistency.js';
import { withInheritedRolesChecked } from './inherited-roles-check.js';
import { laterNameClaims } from './root-fields.js';
import { ServedKeys, type KeySet } from './served-keys.js';
import { withWritePermissionsChecked } from './write-permissions.js';

export interface ConsistencyReport {
  /** The metadata without its inconsistent objects: what the schema is built from. */
  consistent: Metadata;
  inconsistencies: InconsistentObject[];
  /** The remote-schema actor's descriptions of the metadata's remote schemas, which the check used. */
  remotes: RemoteFacts;
  /** The rows of the enum tables (enum-rows.ts), which the check judged and the schema's enums are made of. */
  enumRows: EnumTableRows;
}

/**
 * Checks every metadata object against the database catalog, dependencies first: a
 * missing table takes out the objects that need it, and each is reported once. Remote
 * schemas are judged from `remotes`, the remote-schema actor's descriptions of them
 * (RemoteDescriber), which the caller asks for first so that this stays synchronous.
 */
export function checkConsistency(metadata: Metadata, catalog: Catalog, remotes: RemoteFacts = NO_REMOTE_FACTS, enumRows: EnumTableRows = NO_ENUM_ROWS): ConsistencyReport {
  const inconsistencies: InconsistentObject[] = [];
  const source = metadata.sources[0];
  if (source === undefined) return { consistent: metadata, inconsistencies, remotes, enumRows };

  const live = livePass.run(source.tables, [catalog.relations, enumBasis(enumRows)], (entry) => {
    const key = relationKey(entry.table.schema, entry.table.name);
    return { lookedUp: NOTHING, key, problem: liveTableProblem(entry, key, catalog, enumRows) };
  });
  // The live tables and their outcomes, side by side: with every table live (the usual case at
  // thousands of tables), the lists as they are.
  let liveTables: readonly TableEntry[] = source.tables;
  let liveOutcomes: readonly LiveOutcome[] = live;
  if (live.some((outcome) => outcome.problem !== null)) {
    const tables: TableEntry[] = [];
    const outcomes: LiveOutcome[] = [];
    for (let index = 0; index < live.length; index++) {
      const outcome = live[index]!;
      if (outcome.problem !== null) inconsistencies.push(outcome.problem);
      else {
        tables.push(source.tables[index]!);
        outcomes.push(outcome);
      }
    }
    liveTables = tables;
    liveOutcomes = outcomes;
  }
  const clashes = laterNameClaims(liveTables, catalog);
  let servedTables = liveTables;
  let servedOutcomes = liveOutcomes;
  if (clashes.size > 0) {
    const tables: TableEntry[] = [];
    const outcomes: LiveOutcome[] = [];
    liveTables.forEach((entry, index) => {
      const clash = clashes.get(entry);
      if (clash === undefined) {
        tables.push(entry);
        outcomes.push(liveOutcomes[index]!);
        return;
      }
      const holder = sameTable(clash.holder, entry.table) ? 'itself' : `table ${JSON.stringify(displayName(clash.holder))}`;
      inconsistencies.push({
        type: 'table',
        definition: entry.table,
        reason: `the GraphQL name ${JSON.stringify(clash.name)} of table ${JSON.stringify(displayName(entry.table))} is already used by ${holder}`,
      });
    });
    servedTables = tables;
    servedOutcomes = outcomes;
  }
  const tracked = servedKeys.of(servedOutcomes);

  const relationships = relationshipPass.run(servedTables, [catalog.relations, source.name], (entry) => relationshipsChecked(entry, source.name, catalog, tracked));
  const tables = relationshipEntries.of(relationships, inconsistencies);

  const withRelationships: Metadata = { ...metadata, sources: [{ ...source, tables }, ...metadata.sources.slice(1)] };
  const withFunctions = withFunctionsChecked(withRelationships, catalog, inconsistencies);
  // Enum columns offer only equality and membership, so permissions are judged with their enums.
  const withSelectPermissions = withSelectPermissionsChecked(withFunctions, catalog, inconsistencies, enumRows);
  const withWritePermissions = withWritePermissionsChecked(withSelectPermissions, catalog, inconsistencies, enumRows);
  const withRemoteSchemas = withRemoteSchemasChecked(withWritePermissions, catalog, remotes, inconsistencies);
  return { consistent: withInheritedRolesChecked(withRemoteSchemas, metadata, inconsistencies), inconsistencies, remotes, enumRows };
}

const NOTHING: readonly string[] = [];

/** A table missing from the database, or an enum table whose rows cannot make an enum; null when it is served. */
function liveTableProblem(entry: TableEntry, key: string, catalog: Catalog, enumRows: EnumTableRows): InconsistentObject | null {
  const relation = catalog.relations.get(key);
  if (relation === undefined) return { type: 'table', definition: entry.table, reason: `no such table/view exists in source: ${JSON.stringify(displayName(entry.table))}` };
  if (entry.is_enum !== true) return null;
  const problems = enumTableProblems(relation, enumRows.get(key));
  return problems.length === 0 ? null : { type: 'table', definition: entry.table, reason: enumTableReason(entry.table, problems) };
}

/** Whether a table exists (and an enum table can make an enum), and its key. */
type LiveOutcome = EntryOutcome & { key: string; problem: InconsistentObject | null };

/** The keys of the served tables, which the relationship checks look tables up in. */
const servedKeys = new ServedKeys<LiveOutcome>((outcome) => outcome.key);
/** Whether each table exists (and each enum table can make an enum). */
const livePass = new KeptOutcomes<LiveOutcome>();
/** Each served table's relationships (relationshipsChecked). */
const relationshipPass = new KeptOutcomes<KeptRelationships>();
/** Each table's select permissions (withSelectPermissionsChecked). */
const selectPass = new KeptOutcomes<PermissionsOutcome>();
/** The entries the relationship and select passes leave. */
const relationshipEntries = new CheckedEntries();
const selectEntries = new CheckedEntries();

const selectChecks = new PermissionCheckMemo<PermissionProblem | null>();

/**
 * Select permissions go last: their filters may traverse relationships, so they are
 * checked against the tables as served, after broken relationships are taken out.
 */
function withSelectPermissionsChecked(metadata: Metadata, catalog: Catalog, inconsistencies: InconsistentObject[], enumRows: EnumTableRows): Metadata {
  const source = metadata.sources[0]!;
  const model = buildSourceModel(metadata, catalog, enumRows);
  const outcomes = selectPass.run(source.tables, permissionBasis(metadata, catalog, enumRows, model), (entry) => {
    if (entry.select_permissions === undefined) return { lookedUp: NOTHING, checked: entry, problems: [] };
    const key = relationKey(entry.table.schema, entry.table.name);
    const problems: InconsistentObject[] = [];
    const lookedUp: string[] = [];
    const select_permissions = entry.select_permissions.filter((item) => {
      const problem = selectChecks.get(item.permission, key, model, catalog.relations, (lookups) => selectPermissionProblem(lookups, catalog, key, item.permission));
      lookedUp.push(...selectChecks.lookedUp(item.permission));
      if (problem === null) return true;
      problems.push({
        type: 'select_permission',
        definition: { role: item.role, permission: item.permission, source: source.name, table: entry.table },
        reason: `in table ${JSON.stringify(displayName(entry.table))}: in permission for role ${JSON.stringify(item.role)}: ${problem.message}`,
      });
      return false;
    });
    if (select_permissions.length === entry.select_permissions.length) return { lookedUp, checked: entry, problems };
    const checked: TableEntry = { ...entry, select_permissions };
    if (select_permissions.length === 0) delete checked.select_permissions;
    return { lookedUp, checked, problems };
  });
  const tables = selectEntries.of(outcomes, inconsistencies);
  return { ...metadata, sources: [{ ...source, tables }, ...metadata.sources.slice(1)] };
}

/** A table the relationship checks looked up: its key, whether it is served, and its catalog relation. */
type TableLookup = [key: string, served: boolean, relation: CatalogRelation | undefined];

interface KeptRelationships extends EntryOutcome {
  source: string;
  relation: CatalogRelation;
  lookups: TableLookup[];
  /** The entry without its broken relationships (the entry itself when none is). */
  checked: TableEntry;
  problems: InconsistentObject[];
}

/**
 * Relationship checks kept per table entry, so that an operation checks the relationships
 * of the entries it changed rather than of thousands it did not: reused while the entry is
 * the same object (edit.ts keeps the ones an operation leaves alone), its catalog relation
 * is the same object, and every table the checks looked up is still served, or not, and
 * still the same relation.
 */
const keptRelationships = new WeakMap<TableEntry, KeptRelationships>();

function relationshipsChecked(entry: TableEntry, source: string, catalog: Catalog, tracked: KeySet): KeptRelationships {
  const relation = catalog.relations.get(relationKey(entry.table.schema, entry.table.name))!;
  const kept = keptRelationships.get(entry);
  if (kept !== undefined && kept.source === source && kept.relation === relation && kept.lookups.every(([key, served, was]) => tracked.has(key) === served && catalog.relations.get(key) === was)) {
    return kept;
  }
  const lookups: TableLookup[] = [];
  const problems: InconsistentObject[] = [];
  const lookUp = (table: QualifiedName): { served: boolean; relation: CatalogRelation | undefined } => {
    const key = relationKey(table.schema, table.name);
    const found: TableLookup = [key, tracked.has(key), catalog.relations.get(key)];
    lookups.push(found);
    return { served: found[1], relation: found[2] };
  };
  const columns = relation.columns.map((column) => column.name);
  const keep = (kind: 'object_relation' | 'array_relation') => (relationship: Relationship) => {
    const reason = relationshipProblem(entry, relationship, relation, columns, lookUp);
    if (reason === null) return true;
    problems.push({ type: kind, definition: { ...relationship, source, table: entry.table }, reason });
    return false;
  };
  const objects = entry.object_relationships?.filter(keep('object_relation'));
  const arrays = entry.array_relationships?.filter(keep('array_relation'));
  // An entry with nothing left out stays the same object (table-memo.ts).
  let checked = entry;
  if (objects?.length !== entry.object_relationships?.length || arrays?.length !== entry.array_relationships?.length) {
    checked = { ...entry };
    if (objects) checked.object_relationships = objects;
    if (arrays) checked.array_relationships = arrays;
  }
  const outcome: KeptRelationships = { lookedUp: lookups.map(([key]) => key), source, relation, lookups, checked, problems };
  keptRelationships.set(entry, outcome);
  return outcome;
}

function relationshipProblem(
  entry: TableEntry,
  relationship: Relationship,
  relation: CatalogRelation,
  columnNames: readonly string[],
  lookUp: (table: QualifiedName) => { served: boolean; relation: CatalogRelation | undefined },
): string | null {
  const renamed = columnWithCustomName(entry.configuration, columnNames, relationship.name);
  if (renamed !== undefined) return `field definition conflicts with custom field name for postgres column ${JSON.stringify(renamed)}`;
  const using = relationship.using;
  if ('manual_configuration' in using) {
    const remote = toQualified(using.manual_configuration.remote_table);
    const { served, relation: remoteRelation } = lookUp(remote);
    if (!served || remoteRelation === undefined) {
      return `table ${JSON.stringify(displayName(remote))} is not tracked`;
    }
    for (const [from, to] of Object.entries(using.manual_configuration.column_mapping)) {
      if (!hasColumn(relation, from)) return columnMissing(from, entry.table);
      if (!hasColumn(remoteRelation, to)) return columnMissing(to, remote);
    }
    return null;
  }
  const on = using.foreign_key_constraint_on;
  if (typeof on === 'string' || Array.isArray(on)) {
    // This table holds the key: it must still reference a tracked table through these columns.
    const columns = typeof on === 'string' ? [on] : on;
    for (const column of columns) if (!hasColumn(relation, column)) return columnMissing(column, entry.table);
    const fk = relation.foreignKeys.find((key) => sameColumns(key.columns, columns));
    if (fk === undefined) return `no foreign constraint exists on the given column(s) ${columns.join(', ')}`;
    if (!lookUp({ schema: fk.refSchema, name: fk.refTable }).served) return `table ${JSON.stringify(displayName({ schema: fk.refSchema, name: fk.refTable }))} is not tracked`;
    return null;
  }
  // The other table holds the key, pointing back at this one.
  const other = toQualified(on.table);
  const { served, relation: otherRelation } = lookUp(other);
  if (!served || otherRelation === undefined) {
    return `table ${JSON.stringify(displayName(other))} is not tracked`;
  }
  const columns = on.columns ?? (on.column === undefined ? [] : [on.column]);
  for (const column of columns) if (!hasColumn(otherRelation, column)) return columnMissing(column, other);
  const fk = otherRelation.foreignKeys.find(
    (key) => sameColumns(key.columns, columns) && key.refSchema === entry.table.schema && key.refTable === entry.table.name,
  );
  if (fk === undefined) return `no foreign constraint exists on the given column(s) ${columns.join(', ')}`;
  return null;
}

function hasColumn(relation: CatalogRelation, column: string): boolean {
  return relation.columns.some((candidate) => candidate.name === column);
}

function columnMissing(column: string, table: QualifiedName): string {
  return `column ${JSON.stringify(column)} does not exist in table ${JSON.stringify(displayName(table))}`;
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((column, index) => column === b[index]);
}
