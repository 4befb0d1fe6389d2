import type { Metadata, TableEntry } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import { NO_ENUM_ROWS, type EnumTableRows } from '../models/enum-tables.js';
import type { SourceModel } from '../models/table-model.js';
import type { InconsistentObject } from './inconsistency.js';
import type { EntryOutcome } from './kept-outcomes.js';
import { changedSpan, splicedSpan } from '../../../src/metadata/changed-span.js';

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

/** What a pass made of an entry: the entry without its broken parts, and those reported. */
interface CheckedOutcome {
  checked: TableEntry;
  problems: readonly InconsistentObject[];
}

/**
 * The entries a pass leaves, in order, its problems added to `inconsistencies`; kept from
 * one check to the next. The pass keeps most outcomes as the same objects in the same places
 * (KeptOutcomes): while none of them has a problem, the entries of those are the last list's,
 * copied, and only the span the outcomes differ in is read.
 */
export class CheckedEntries {
  #last: { outcomes: readonly CheckedOutcome[]; entries: readonly TableEntry[]; withProblems: number } | null = null;

  of(outcomes: readonly CheckedOutcome[], inconsistencies: InconsistentObject[]): TableEntry[] {
    const last = this.#last;
    this.#last = null;
    // Problems are reported in the entries' order: with any before, every outcome is read.
    const span = last === null || last.withProblems > 0 ? { start: 0, beforeEnd: last?.outcomes.length ?? 0, afterEnd: outcomes.length } : changedSpan(last.outcomes, outcomes);
    const middle: TableEntry[] = [];
    let withProblems = 0;
    for (let index = span.start; index < span.afterEnd; index++) {
      const outcome = outcomes[index]!;
      if (outcome.problems.length > 0) {
        inconsistencies.push(...outcome.problems);
        withProblems++;
      }
      middle.push(outcome.checked);
    }
    const entries = last === null ? middle : splicedSpan(last.entries, span, middle);
    this.#last = { outcomes, entries, withProblems };
    return entries;
  }
}
