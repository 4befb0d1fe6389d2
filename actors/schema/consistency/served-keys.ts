import { changedSpan } from '../../../src/metadata/changed-span.js';

/** Which table keys are among the served tables. */
export interface KeySet {
  has(key: string): boolean;
}

/**
 * The keys of the tables a check serves, kept from one check to the next and changed where
 * the list of keys changed (changed-span.ts): at thousands of tables, making a set of them
 * anew was a large part of every operation's check. Counted, so that a list naming a table
 * twice (metadata written by other means) stays right. The list is of items that have a key
 * (`keyOf`), so that a caller's list of outcomes serves without a list of keys made from it.
 * What `of` returns is the caller's to read until the next call; the list given is kept, for
 * the next call to compare with, and must not change.
 */
export class ServedKeys<T> implements KeySet {
  #items: readonly T[] = [];
  readonly #counts = new Map<string, number>();

  constructor(private readonly keyOf: (item: T) => string) {}

  of(items: readonly T[]): KeySet {
    const span = changedSpan(this.#items, items);
    for (let index = span.start; index < span.beforeEnd; index++) {
      const key = this.keyOf(this.#items[index]!);
      const count = this.#counts.get(key)! - 1;
      if (count === 0) this.#counts.delete(key);
      else this.#counts.set(key, count);
    }
    for (let index = span.start; index < span.afterEnd; index++) {
      const key = this.keyOf(items[index]!);
      this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    }
    this.#items = items;
    return this;
  }

  has(key: string): boolean {
    return this.#counts.has(key);
  }
}
