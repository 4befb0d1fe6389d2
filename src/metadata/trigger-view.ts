import type { Metadata, TableEntry } from './types.js';

/**
 * The part of the metadata the triggers actor uses: the tables that have event triggers,
 * with them, and nothing else. It changes only when triggers do, so tracking a table
 * without triggers leaves it as it was: at thousands of tables a view of every table by
 * name was a fifth of a megabyte to build, write and read again after each track_table.
 * The tracked tables the publication follows are read apart (MetadataStore.readTrackedTables).
 */
export function triggerView(metadata: Metadata): Metadata {
  const sources = metadata.sources.map((source) => ({
    name: source.name,
    kind: source.kind,
    tables: source.tables.filter(hasEventTriggers).map((table) => ({ table: table.table, event_triggers: table.event_triggers })),
  }));
  return { version: 3, sources } as Metadata;
}

export function hasEventTriggers(table: TableEntry): boolean {
  return (table.event_triggers?.length ?? 0) > 0;
}

/**
 * The metadata row's columns as the replication stream carries them (text, or absent when
 * an unchanged large value was left out): the stored trigger view when it was written with
 * this version of the metadata, else the whole metadata; null when neither came, or when the
 * write kept the view as it was (a small view is in every update of the row). A row that
 * holds its tables apart (store.ts) has none in its metadata: its view stays right under a
 * version changed by other means, as only the engine writes the table entries, and it
 * writes the view with them.
 */
export function triggerViewText(row: Readonly<Record<string, string | null | undefined>>): string | null {
  // A write of this engine that kept the view (store.ts: kept with this version, written with an earlier one) changed no trigger.
  if (row.trigger_view_kept != null && row.trigger_view_kept === row.resource_version && row.trigger_view_written != null && row.trigger_view_written !== row.resource_version) return null;
  const current = row.trigger_view_version != null && row.trigger_view_version === row.resource_version;
  if (current && row.trigger_view != null) return row.trigger_view;
  if (row.metadata != null && holdsTablesApart(row.metadata)) return row.trigger_view ?? null;
  return row.metadata ?? null;
}

/** Whether a metadata row's JSON text has its sources without their tables; a cheap look first, as a whole metadata is megabytes. */
function holdsTablesApart(text: string): boolean {
  if (!text.includes('"tables":null')) return false;
  const sources = (JSON.parse(text) as { sources?: Array<{ tables?: unknown }> }).sources;
  return sources?.[0]?.tables === null;
}
