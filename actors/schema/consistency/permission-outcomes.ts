import type { Metadata, TableEntry } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import { NO_ENUM_ROWS, type EnumTableRows } from '../models/enum-tables.js';
import type { SourceModel } from '../models/table-model.js';
import type { InconsistentObject } from './inconsistency.js';
import type { EntryOutcome } from './kept-outcomes.js';

/** A table entry's permissions of one pass: the entry without its broken ones, and those reported. */
export interface PermissionsOutcome extends EntryOutcome {
  checked: TableEntry;
  problems: InconsistentObject[];
}

/** Enum tables' rows are read anew for every check: with any, no pass keeps its outcomes. */
export function enumBasis(enumRows: EnumTableRows): EnumTableRows {
  return enumRows.size === 0 ? NO_ENUM_ROWS : enumRows;
}

/**
 * What a permission check depends on besides its table entry and the models of the tables
 * it looked up (KeptOutcomes): the source, the catalog, the enum tables' rows and the inherited roles.
 * Functions and computed fields reach into any table, so with them no outcome is kept.
 */
export function permissionBasis(metadata: Metadata, catalog: Catalog, enumRows: EnumTableRows, model: SourceModel): unknown[] {
  const withFunctions = (metadata.sources[0]?.functions ?? []).length > 0 || model.functions.computedFields.size > 0;
  return [metadata.sources[0]?.name, catalog.relations, catalog.functions, catalog.enums, enumBasis(enumRows), JSON.stringify(metadata.inherited_roles ?? []), withFunctions ? {} : null];
}

/** The entries a pass leaves, in order, its problems added to `inconsistencies`. */
export function checkedEntries(outcomes: readonly { checked: TableEntry; problems: readonly InconsistentObject[] }[], inconsistencies: InconsistentObject[]): TableEntry[] {
  const entries = new Array<TableEntry>(outcomes.length);
  for (let index = 0; index < outcomes.length; index++) {
    const outcome = outcomes[index]!;
    if (outcome.problems.length > 0) inconsistencies.push(...outcome.problems);
    entries[index] = outcome.checked;
  }
  return entries;
}
