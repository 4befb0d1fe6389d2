import { changedSpan } from '../../../src/metadata/changed-span.js';

/** Which table keys are among the served tables. */
export interface KeySet {
  has(key: string): boolean;
}

/**
 * The keys of the tables a check serves, kept from one check to the next and changed where
 * the list of keys changed (changed-span.ts): at thousands of tables, making a set of them
 * anew was a large part of every operation's check. Counted, so that a list naming a table
 * twice (metadata written by other means) stays right. What `of` returns is the caller's to
 * read until the next call; the list given is kept, for the next call to compare with, and
 * must not change.
 */
export class ServedKeys implements KeySet {
  #keys: readonly string[] = [];
  readonly #counts = new Map<string, number>();

  of(keys: readonly string[]): KeySet {
    const span = changedSpan(this.#keys, keys);
    for (let index = span.start; index < span.beforeEnd; index++) {
      const key = this.#keys[index]!;
      const count = this.#counts.get(key)! - 1;
      if (count === 0) this.#counts.delete(key);
      else this.#counts.set(key, count);
    }
    for (let index = span.start; index < span.afterEnd; index++) this.#counts.set(keys[index]!, (this.#counts.get(keys[index]!) ?? 0) + 1);
    this.#keys = keys;
    return this;
  }

  has(key: string): boolean {
    return this.#counts.has(key);
  }
}
