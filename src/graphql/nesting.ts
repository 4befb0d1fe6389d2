import { Kind, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

/**
 * Bounds on how deeply a GraphQL document may nest. graphql-js parses and validates
 * recursively, and some validation rules (overlapping fields) cost more than linear time
 * in the nesting; the SQL compiler then recurses per selection. No real query nests 100
 * deep; the fan-out attack needed 8.
 */
export const MAX_DOCUMENT_DEPTH = 100;

const OPEN = new Set([0x7b, 0x28, 0x5b]); // { ( [
const CLOSE = new Set([0x7d, 0x29, 0x5d]); // } ) ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HASH = 0x23;
const NEWLINE = 0x0a;
const RETURN = 0x0d;

/**
 * Whether the document's text nests braces, parentheses and brackets (selection sets,
 * arguments, list and object values) deeper than `limit`: one pass over the characters,
 * skipping strings, block strings and comments, before the parser sees it.
 */
export function documentTextTooDeep(text: string, limit = MAX_DOCUMENT_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === HASH) {
      while (i + 1 < text.length && text.charCodeAt(i + 1) !== NEWLINE && text.charCodeAt(i + 1) !== RETURN) i++;
    } else if (code === QUOTE) {
      i = text.startsWith('"""', i) ? endOfBlockString(text, i + 3) : endOfString(text, i + 1);
    } else if (OPEN.has(code)) {
      if (++depth > limit) return true;
    } else if (CLOSE.has(code)) depth--;
  }
  return false;
}

/** Index of the closing quote of a string whose text starts at `from` (or the end: the parser reports it). */
function endOfString(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === QUOTE || code === NEWLINE || code === RETURN) return i;
  }
  return text.length;
}

/** Index of the last quote of a block string whose text starts at `from`; `\"""` does not end it. */
function endOfBlockString(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text.startsWith('\\"""', i)) i += 3;
    else if (text.startsWith('"""', i)) return i + 2;
  }
  return text.length;
}

/**
 * Whether a selection set nests fields deeper than `limit` once fragments are expanded:
 * a chain of fragments, each shallow in the text, can still nest deep. Each fragment's
 * depth is worked out once (so a fragment spread many times costs once), a fragment
 * within itself (a cycle, which validation refuses) adds nothing, and a chain of spreads
 * longer than the limit is too deep whatever its fields, which bounds the recursion.
 */
export function selectionsTooDeep(selectionSet: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, limit = MAX_DOCUMENT_DEPTH): boolean {
  const known = new Map<string, number>();
  const inProgress = new Set<string>();
  const tooDeep = limit + 1;

  const depthOf = (set: SelectionSetNode, nesting: number): number => {
    if (nesting > limit) return tooDeep;
    let deepest = 0;
    for (const selection of set.selections) {
      let below = 0;
      if (selection.kind === Kind.FIELD) below = selection.selectionSet === undefined ? 1 : 1 + depthOf(selection.selectionSet, nesting + 1);
      else if (selection.kind === Kind.INLINE_FRAGMENT) below = depthOf(selection.selectionSet, nesting + 1);
      else below = fragmentDepth(selection.name.value, nesting + 1);
      deepest = Math.max(deepest, below);
      if (deepest > limit) return tooDeep;
    }
    return deepest;
  };

  const fragmentDepth = (name: string, nesting: number): number => {
    const cached = known.get(name);
    if (cached !== undefined) return cached;
    const fragment = fragments.get(name);
    if (fragment === undefined || inProgress.has(name)) return 0;
    inProgress.add(name);
    const depth = depthOf(fragment.selectionSet, nesting);
    inProgress.delete(name);
    known.set(name, depth);
    return depth;
  };

  return depthOf(selectionSet, 0) > limit;
}
