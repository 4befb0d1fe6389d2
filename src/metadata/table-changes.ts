import { relationKey } from '../pg/catalog.js';
import { changedSpan } from './changed-span.js';
import { hasEventTriggers } from './trigger-view.js';
import type { Metadata, QualifiedName, TableEntry } from './types.js';

/** A table entry to store, in the source it belongs to. */
export interface StoredEntry {
  source: string;
  entry: TableEntry;
}

/**
 * A new entry and where it goes: between the entries already stored `after` and `before`
 * (null: the source's start or end), `rank` of the `of` new entries that go there.
 */
export interface InsertedEntry extends StoredEntry {
  after: QualifiedName | null;
  before: QualifiedName | null;
  rank: number;
  of: number;
}

/** What a write changes among the stored table entries, each source's order kept. */
export interface TableChanges {
  /** Entries whose definition changed, each in its place. */
  changed: StoredEntry[];
  /** Entries new to their source, each between the stored entries around it. */
  inserted: InsertedEntry[];
  /** Entries gone from their source. */
  removed: { source: string; schema: string; name: string }[];
  /** Whether event triggers changed: a changed entry's, or those of an entry that came or went. */
  triggersChanged: boolean;
}

/**
 * Past this many entries written one by one, the whole set is written at once (the
 * statements of a `replace_metadata` would cost more than one pass over everything).
 */
const MOST_ENTRIES_ONE_BY_ONE = 64;

/**
 * The table entries `next` changes against `base`, the metadata as stored; null when only
 * writing every entry keeps the order (sources added, removed or renamed, an entry moved
 * past another) or when too many changed. An entry counts as changed when it is another
 * object: the edits keep every entry they leave alone as the same object (edit.ts), so
 * comparing identities costs nothing per entry.
 */
export function tableChanges(base: Metadata, next: Metadata): TableChanges | null {
  if (base.sources.length !== next.sources.length) return null;
  const changes: TableChanges = { changed: [], inserted: [], removed: [], triggersChanged: false };
  for (let index = 0; index < next.sources.length; index++) {
    const before = base.sources[index]!;
    const after = next.sources[index]!;
    if (before.name !== after.name) return null;
    if (before.tables === after.tables) continue;
    if (!sourceChanges(after.name, before.tables, after.tables, changes)) return null;
  }
  return changes;
}

/**
 * Only the span the edit changed is compared by key (changed-span.ts): the entries around it
 * are the same objects in the same order, stored as they are.
 */
function sourceChanges(source: string, before: readonly TableEntry[], after: readonly TableEntry[], changes: TableChanges): boolean {
  const span = changedSpan(before, after);
  const places = new Map<string, number>();
  for (let place = span.start; place < span.beforeEnd; place++) places.set(relationKey(before[place]!.table.schema, before[place]!.table.name), place);
  const kept = new Set<number>();
  let lastPlace = span.start - 1;
  let lastKept: QualifiedName | null = span.start > 0 ? before[span.start - 1]!.table : null;
  let waiting: TableEntry[] = [];
  const insertWaiting = (next: QualifiedName | null) => {
    waiting.forEach((entry, rank) => {
      changes.inserted.push({ source, entry, after: lastKept, before: next, rank: rank + 1, of: waiting.length });
      if (hasEventTriggers(entry)) changes.triggersChanged = true;
    });
    waiting = [];
  };
  for (let index = span.start; index < span.afterEnd; index++) {
    const entry = after[index]!;
    const place = places.get(relationKey(entry.table.schema, entry.table.name));
    if (place === undefined) {
      waiting.push(entry);
    } else {
      // An entry stored after one it now comes before has moved: only a whole write keeps that order.
      if (place <= lastPlace) return false;
      insertWaiting(entry.table);
      lastPlace = place;
      lastKept = entry.table;
      kept.add(place);
      if (before[place] !== entry) {
        changes.changed.push({ source, entry });
        if (JSON.stringify(before[place]!.event_triggers) !== JSON.stringify(entry.event_triggers)) changes.triggersChanged = true;
      }
    }
    if (changes.changed.length + changes.inserted.length + waiting.length > MOST_ENTRIES_ONE_BY_ONE) return false;
  }
  insertWaiting(span.afterEnd < after.length ? after[span.afterEnd]!.table : null);
  for (let place = span.start; place < span.beforeEnd; place++) {
    if (kept.has(place)) continue;
    changes.removed.push({ source, schema: before[place]!.table.schema, name: before[place]!.table.name });
    if (hasEventTriggers(before[place]!)) changes.triggersChanged = true;
  }
  return true;
}
