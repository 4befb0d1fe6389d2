import { changedSpan } from '../../../src/metadata/changed-span.js';
import type { Metadata, QualifiedName, TableEntry } from '../../../src/metadata/types.js';
import { relationKey } from '../../../src/pg/catalog.js';
import type { PoolClient } from '../../../src/pg/pool.js';
import { followTables, releaseTables } from '../../../src/pg/replication/publication.js';

/**
 * Tracked tables follow the publication, so that logical replication reports their
 * changes to the subscriptions' change feed (ARCHITECTURE "Changes for subscriptions"):
 * a newly tracked table joins it and an untracked one leaves it, in the transaction that
 * commits the metadata. Best effort: without the right to create or alter the
 * publication, the tables stay out and their subscriptions are polled.
 */
export async function followTrackedTables(transaction: PoolClient, before: Metadata, after: Metadata): Promise<void> {
  // Only the span the edit changed can hold tables that came or went (changed-span.ts).
  const was = before.sources[0]?.tables ?? [];
  const is = after.sources[0]?.tables ?? [];
  const span = changedSpan(was, is);
  const wasTables = trackedTables(was.slice(span.start, span.beforeEnd));
  const isTables = trackedTables(is.slice(span.start, span.afterEnd));
  const joined = [...isTables].filter(([key]) => !wasTables.has(key)).map(([, table]) => table);
  const left = [...wasTables].filter(([key]) => !isTables.has(key)).map(([, table]) => table);
  await followTables(transaction, joined);
  await releaseTables(transaction, left);
}

function trackedTables(entries: readonly TableEntry[]): Map<string, QualifiedName> {
  return new Map(entries.map((entry) => [relationKey(entry.table.schema, entry.table.name), entry.table]));
}
