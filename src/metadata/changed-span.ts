/**
 * Where two versions of a list of immutable entries differ, entries compared by identity.
 * The edits keep every entry they leave alone as the same object (edit.ts, normalize.ts),
 * so the part an operation changed is found without looking into thousands of entries:
 * before `start` both lists hold the same objects, and so do their tails after
 * `beforeEnd` and `afterEnd`.
 */
export interface ChangedSpan {
  start: number;
  /** End (exclusive) of the differing part of the earlier list. */
  beforeEnd: number;
  /** End (exclusive) of the differing part of the later list. */
  afterEnd: number;
}

export function changedSpan<T>(before: readonly T[], after: readonly T[]): ChangedSpan {
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before[start] === after[start]) start++;
  let beforeEnd = before.length;
  let afterEnd = after.length;
  while (beforeEnd > start && afterEnd > start && before[beforeEnd - 1] === after[afterEnd - 1]) {
    beforeEnd--;
    afterEnd--;
  }
  return { start, beforeEnd, afterEnd };
}

/**
 * The index in `before` whose entry `after[index]` is, by identity, when it is one the span
 * left in place (in the common head or tail, or at the same place of an equally long
 * differing part); -1 otherwise.
 */
export function keptIndex<T>(span: ChangedSpan, before: readonly T[], after: readonly T[], index: number): number {
  if (index < span.start) return index;
  if (index >= span.afterEnd) return index - span.afterEnd + span.beforeEnd;
  const same = span.beforeEnd - span.start === span.afterEnd - span.start;
  return same && before[index] === after[index] ? index : -1;
}

/**
 * A list kept item for item beside `before`, carried over to `after`: its head and tail as
 * they were, `middle` in place of the span. Copied by `slice` and `concat`: at thousands of
 * entries, copying the kept items one by one was a visible part of every operation.
 */
export function splicedSpan<T>(kept: readonly T[], span: ChangedSpan, middle: readonly T[]): T[] {
  return kept.slice(0, span.start).concat(middle, kept.slice(span.beforeEnd));
}
