import type { Metadata } from './types.js';

/**
 * The part of the metadata the triggers actor uses: every table by name (the tracked tables
 * follow the publication), with its event triggers where it has them, and nothing else.
 * At thousands of tables the whole metadata is megabytes; this is a few tens of bytes per
 * table.
 */
export function triggerView(metadata: Metadata): Metadata {
  const sources = metadata.sources.map((source) => ({
    name: source.name,
    kind: source.kind,
    tables: source.tables.map((table) => (table.event_triggers === undefined ? { table: table.table } : { table: table.table, event_triggers: table.event_triggers })),
  }));
  return { version: 3, sources } as Metadata;
}

/**
 * The metadata row's columns as the replication stream carries them (text, or absent when
 * an unchanged large value was left out): the stored trigger view when it was written with
 * this version of the metadata, else the whole metadata; null when neither came. A row that
 * holds its tables apart (store.ts) has none in its metadata: its view stays right under a
 * version changed by other means, as only the engine writes the table entries, and it
 * writes the view with them.
 */
export function triggerViewText(row: Readonly<Record<string, string | null | undefined>>): string | null {
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
