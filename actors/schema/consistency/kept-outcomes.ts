import { changedSpan, keptIndex, splicedSpan, type ChangedSpan } from '../../../src/metadata/changed-span.js';
import type { TableEntry } from '../../../src/metadata/types.js';
import { relationKey } from '../../../src/pg/catalog.js';

/** One table entry's outcome of a pass of the consistency check. */
export interface EntryOutcome {
  /** The keys of the tables the pass looked at for this entry besides the entry itself. */
  readonly lookedUp: readonly string[];
}

/** Up to this many stale outcomes outside the changed span are each looked for in the last outcomes; more, and every entry is gone through. */
const FEW_STALE = 32;

/**
 * The outcomes of one pass of the consistency check, kept from one check to the next. An
 * operation changes an entry or two of thousands, and the edits keep the others as the same
 * objects in the same order (changed-span.ts): an entry left in place keeps its outcome
 * unless a table it looked at is one whose entry changed, came or went. `basis` is what
 * every outcome depends on besides the entries (the catalog's parts, the enum tables'
 * rows), compared item by item by identity: any other basis checks every entry again.
 *
 * Which kept outcomes looked at a changed table is found from an index of the outcomes by
 * the tables they looked at, and when none around the changed span did, only the span is
 * looked at: at thousands of tables, asking each outcome's looked-up keys was most of an
 * operation's check.
 * `compute` gives each entry an outcome object of its own (it may give an entry the one it
 * gave that entry before): the index counts on no object standing for two entries.
 */
export class KeptOutcomes<R extends EntryOutcome> {
  #last: { basis: readonly unknown[]; entries: readonly TableEntry[]; outcomes: readonly R[] } | null = null;
  /** For each table key, the kept outcomes that looked at that table. */
  readonly #lookers = new Map<string, Set<R>>();

  run(entries: readonly TableEntry[], basis: readonly unknown[], compute: (entry: TableEntry) => R): R[] {
    const last = this.#last !== null && sameItems(this.#last.basis, basis) ? this.#last : null;
    // Let go while computing: a failure half way must not leave outcomes of a pass that did not finish.
    this.#last = null;
    const outcomes = last === null ? this.#computeAll(entries, compute) : this.#keepFrom(last, entries, compute);
    this.#last = { basis, entries, outcomes };
    return outcomes;
  }

  #computeAll(entries: readonly TableEntry[], compute: (entry: TableEntry) => R): R[] {
    this.#lookers.clear();
    const outcomes = entries.map(compute);
    for (const outcome of outcomes) this.#index(outcome);
    return outcomes;
  }

  #keepFrom(last: { entries: readonly TableEntry[]; outcomes: readonly R[] }, entries: readonly TableEntry[], compute: (entry: TableEntry) => R): R[] {
    const span = changedSpan(last.entries, entries);
    // The kept outcomes that looked at a table whose entry changed, came or went: computed again.
    const stale = new Set<R>();
    const addStale = (entry: TableEntry) => {
      const lookers = this.#lookers.get(keyOf(entry));
      if (lookers !== undefined) for (const outcome of lookers) stale.add(outcome);
    };
    for (let index = span.start; index < span.beforeEnd; index++) addStale(last.entries[index]!);
    for (let index = span.start; index < span.afterEnd; index++) addStale(entries[index]!);
    const dropped: R[] = [];
    const added: R[] = [];
    const reused = new Set<R>();
    const outcomeAt = (index: number): R => {
      const at = keptIndex(span, last.entries, entries, index);
      const kept = at < 0 ? undefined : last.outcomes[at]!;
      if (kept !== undefined && (stale.size === 0 || !stale.has(kept))) {
        if (index >= span.start && index < span.afterEnd) reused.add(kept);
        return kept;
      }
      if (kept !== undefined) dropped.push(kept);
      const outcome = compute(entries[index]!);
      added.push(outcome);
      return outcome;
    };
    // An outcome lists its own table when it looked at it (a permission does), so the outcomes of
    // the changed entries are often among the stale: those are the span's to compute anyway.
    const staleOutside = stale.size === 0 ? [] : outsideSpan(stale, last.outcomes, span);
    // The head and the tail are the last outcomes as they were, but for the stale among them,
    // each found by a native search while they are few (and each where it is, once).
    const staleAt = staleOutside.length <= FEW_STALE ? staleOutside.map((outcome) => last.outcomes.indexOf(outcome)) : null;
    let outcomes: R[];
    if (staleAt !== null && staleAt.every((at) => at >= 0 && last.outcomes.indexOf(last.outcomes[at]!, at + 1) < 0)) {
      const middle: R[] = [];
      for (let index = span.start; index < span.afterEnd; index++) middle.push(outcomeAt(index));
      outcomes = splicedSpan(last.outcomes, span, middle);
      staleOutside.forEach((outcome, which) => {
        const at = staleAt[which]!;
        const index = at < span.start ? at : at - span.beforeEnd + span.afterEnd;
        const fresh = compute(entries[index]!);
        dropped.push(outcome);
        added.push(fresh);
        outcomes[index] = fresh;
      });
    } else {
      outcomes = [];
      for (let index = 0; index < entries.length; index++) outcomes.push(outcomeAt(index));
    }
    for (let index = span.start; index < span.beforeEnd; index++) {
      const outcome = last.outcomes[index]!;
      if (!reused.has(outcome)) dropped.push(outcome);
    }
    // Dropped first: a computation may give back an outcome object it gave before.
    for (const outcome of dropped) this.#unindex(outcome);
    for (const outcome of added) this.#index(outcome);
    return outcomes;
  }

  #index(outcome: R): void {
    for (const key of outcome.lookedUp) {
      let lookers = this.#lookers.get(key);
      if (lookers === undefined) this.#lookers.set(key, (lookers = new Set()));
      lookers.add(outcome);
    }
  }

  #unindex(outcome: R): void {
    for (const key of outcome.lookedUp) {
      const lookers = this.#lookers.get(key);
      if (lookers === undefined) continue;
      lookers.delete(outcome);
      if (lookers.size === 0) this.#lookers.delete(key);
    }
  }
}

/** The outcomes of `stale` that are not in the changed span of `outcomes` (all are in `outcomes`). */
function outsideSpan<R>(stale: ReadonlySet<R>, outcomes: readonly R[], span: ChangedSpan): R[] {
  const inSpan = new Set<R>();
  for (let index = span.start; index < span.beforeEnd; index++) if (stale.has(outcomes[index]!)) inSpan.add(outcomes[index]!);
  return [...stale].filter((outcome) => !inSpan.has(outcome));
}

function keyOf(entry: TableEntry): string {
  return relationKey(entry.table.schema, entry.table.name);
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
