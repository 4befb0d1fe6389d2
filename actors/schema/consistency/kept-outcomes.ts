import { changedSpan, keptIndex } from '../../../src/metadata/changed-span.js';
import type { TableEntry } from '../../../src/metadata/types.js';
import { relationKey } from '../../../src/pg/catalog.js';

/** One table entry's outcome of a pass of the consistency check. */
export interface EntryOutcome {
  /** The keys of the tables the pass looked at for this entry besides the entry itself. */
  readonly lookedUp: readonly string[];
}

/**
 * The outcomes of one pass of the consistency check, kept from one check to the next. An
 * operation changes an entry or two of thousands, and the edits keep the others as the same
 * objects in the same order (changed-span.ts): an entry left in place keeps its outcome
 * unless a table it looked at is one whose entry changed, came or went. `basis` is what
 * every outcome depends on besides the entries (the catalog's parts, the enum tables'
 * rows), compared item by item by identity: any other basis checks every entry again.
 */
export class KeptOutcomes<R extends EntryOutcome> {
  #last: { basis: readonly unknown[]; entries: readonly TableEntry[]; outcomes: readonly R[] } | null = null;

  run(entries: readonly TableEntry[], basis: readonly unknown[], compute: (entry: TableEntry) => R): R[] {
    const last = this.#last !== null && sameItems(this.#last.basis, basis) ? this.#last : null;
    // Let go while computing: a failure half way must not leave outcomes of a pass that did not finish.
    this.#last = null;
    let outcomes: R[];
    if (last === null) {
      outcomes = entries.map(compute);
    } else {
      const span = changedSpan(last.entries, entries);
      const changed = new Set<string>();
      for (let index = span.start; index < span.beforeEnd; index++) changed.add(keyOf(last.entries[index]!));
      for (let index = span.start; index < span.afterEnd; index++) changed.add(keyOf(entries[index]!));
      // Plain loops: this runs over every entry of every pass of every check.
      outcomes = new Array<R>(entries.length);
      for (let index = 0; index < entries.length; index++) {
        const at = keptIndex(span, last.entries, entries, index);
        const kept = at < 0 ? undefined : last.outcomes[at]!;
        outcomes[index] = kept !== undefined && !looksAtAny(kept.lookedUp, changed) ? kept : compute(entries[index]!);
      }
    }
    this.#last = { basis, entries, outcomes };
    return outcomes;
  }
}

function looksAtAny(keys: readonly string[], changed: ReadonlySet<string>): boolean {
  if (changed.size === 0) return false;
  for (let index = 0; index < keys.length; index++) if (changed.has(keys[index]!)) return true;
  return false;
}

function keyOf(entry: TableEntry): string {
  return relationKey(entry.table.schema, entry.table.name);
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
