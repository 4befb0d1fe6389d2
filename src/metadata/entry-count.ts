import { changedSpan } from './changed-span.js';

/**
 * How many entries of a list match, kept from one list to the next: the edits keep every
 * entry they leave alone as the same object in the same order (changed-span.ts), so the
 * count of the next list is the last one's, corrected in the span an edit changed. Asking
 * each of 5,000 entries on every check of every operation cost more than the check of the
 * entry the operation changed. `matches` must depend on the entry alone.
 */
export class EntryCount<T> {
  readonly #matches: (entry: T) => boolean;
  #last: { entries: readonly T[]; count: number } | null = null;

  constructor(matches: (entry: T) => boolean) {
    this.#matches = matches;
  }

  of(entries: readonly T[]): number {
    const last = this.#last;
    let count: number;
    if (last === null) count = this.#countIn(entries, 0, entries.length);
    else {
      const span = changedSpan(last.entries, entries);
      count = last.count - this.#countIn(last.entries, span.start, span.beforeEnd) + this.#countIn(entries, span.start, span.afterEnd);
    }
    this.#last = { entries, count };
    return count;
  }

  #countIn(entries: readonly T[], from: number, to: number): number {
    let count = 0;
    for (let index = from; index < to; index++) if (this.#matches(entries[index]!)) count++;
    return count;
  }
}
