import { describe, expect, it } from 'vitest';
import { changedSpan, keptIndex } from './changed-span.js';

const entry = (name: string) => ({ name });
const [a, b, c, d, e, x, y] = [entry('a'), entry('b'), entry('c'), entry('d'), entry('e'), entry('x'), entry('y')];

/** For each entry of `after`, the index in `before` of the same object the span left in place, else -1. */
function kept(before: object[], after: object[]): number[] {
  const span = changedSpan(before, after);
  return after.map((_, index) => keptIndex(span, before, after, index));
}

describe('changedSpan', () => {
  it('finds the one entry replaced, added or removed between the same objects around it', () => {
    expect(changedSpan([a, b, c, d], [a, b, c, d])).toEqual({ start: 4, beforeEnd: 4, afterEnd: 4 });
    expect(changedSpan([a, b, c, d], [a, x, c, d])).toEqual({ start: 1, beforeEnd: 2, afterEnd: 2 });
    expect(changedSpan([a, b, c, d], [a, b, x, c, d])).toEqual({ start: 2, beforeEnd: 2, afterEnd: 3 });
    expect(changedSpan([a, b, c, d], [a, c, d])).toEqual({ start: 1, beforeEnd: 2, afterEnd: 1 });
    expect(changedSpan([], [a])).toEqual({ start: 0, beforeEnd: 0, afterEnd: 1 });
    expect(changedSpan([a, b], [])).toEqual({ start: 0, beforeEnd: 2, afterEnd: 0 });
  });

  it('compares identities, not contents', () => {
    expect(changedSpan([a, b, c], [a, { name: 'b' }, c])).toEqual({ start: 1, beforeEnd: 2, afterEnd: 2 });
  });

  it('keeps in place the head, the tail and, in an equally long changed part, the entries at their places', () => {
    expect(kept([a, b, c, d, e], [a, x, c, y, e])).toEqual([0, -1, 2, -1, 4]);
    expect(kept([a, b, c, d], [a, x, b, c, d])).toEqual([0, -1, 1, 2, 3]);
    expect(kept([a, b, c, d], [a, d])).toEqual([0, 3]);
    expect(kept([a, b, c], [x, a, y, c])).toEqual([-1, -1, -1, 2]);
  });
});
