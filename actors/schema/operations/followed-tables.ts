import type { Metadata, QualifiedName } from '../../../src/metadata/types.js';
import { relationKey } from '../../../src/pg/catalog.js';
import type { PoolClient } from '../../../src/pg/pool.js';
import { ensurePublication, followTables, releaseTables } from '../../../src/pg/replication/publication.js';

/**
 * Tracked tables follow the publication, so that logical replication reports their
 * changes to the subscriptions' change feed (ARCHITECTURE "Changes for subscriptions"):
 * a newly tracked table joins it and an untracked one leaves it, in the transaction that
 * commits the metadata. Best effort: without the right to create or alter the
 * publication, the tables stay out and their subscriptions are polled.
 */
export async function followTrackedTables(transaction: PoolClient, before: Metadata, after: Metadata): Promise<void> {
  if (sameTrackedTables(before, after)) return;
  const was = trackedTables(before);
  const is = trackedTables(after);
  const joined = [...is].filter(([key]) => !was.has(key)).map(([, table]) => table);
  const left = [...was].filter(([key]) => !is.has(key)).map(([, table]) => table);
  if (joined.length === 0 && left.length === 0) return;
  await transaction.query('savepoint follow_tables');
  try {
    await ensurePublication(transaction);
    await transaction.query('release savepoint follow_tables');
  } catch {
    await transaction.query('rollback to savepoint follow_tables');
    return;
  }
  await followTables(transaction, joined);
  await releaseTables(transaction, left);
}

/**
 * Whether both hold the same tables in the same order: what most operations (a relationship,
 * a permission) leave as it was, told without building two maps of thousands of keys.
 */
function sameTrackedTables(before: Metadata, after: Metadata): boolean {
  const was = before.sources[0]?.tables ?? [];
  const is = after.sources[0]?.tables ?? [];
  if (was.length !== is.length) return false;
  for (let index = 0; index < was.length; index++) {
    const a = was[index]!.table;
    const b = is[index]!.table;
    if (a !== b && (a.schema !== b.schema || a.name !== b.name)) return false;
  }
  return true;
}

/** The tracked tables by key: thousands of them are compared when the list changed. */
function trackedTables(metadata: Metadata): Map<string, QualifiedName> {
  return new Map((metadata.sources[0]?.tables ?? []).map((entry) => [relationKey(entry.table.schema, entry.table.name), entry.table]));
}
