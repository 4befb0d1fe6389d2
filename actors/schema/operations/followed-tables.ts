import { sameTable } from '../../../src/metadata/edit.js';
import type { Metadata, QualifiedName } from '../../../src/metadata/types.js';
import type { PoolClient } from '../../../src/pg/pool.js';
import { ensurePublication, followTable, releaseTable } from '../../../src/pg/replication/publication.js';

/**
 * Tracked tables follow the publication, so that logical replication reports their
 * changes to the subscriptions' change feed (ARCHITECTURE "Changes for subscriptions"):
 * a newly tracked table joins it and an untracked one leaves it, in the transaction that
 * commits the metadata. Best effort: without the right to create or alter the
 * publication, the tables stay out and their subscriptions are polled.
 */
export async function followTrackedTables(transaction: PoolClient, before: Metadata, after: Metadata): Promise<void> {
  const was = trackedTables(before);
  const is = trackedTables(after);
  const joined = is.filter((table) => !was.some((other) => sameTable(other, table)));
  const left = was.filter((table) => !is.some((other) => sameTable(other, table)));
  if (joined.length === 0 && left.length === 0) return;
  await transaction.query('savepoint follow_tables');
  try {
    await ensurePublication(transaction);
    await transaction.query('release savepoint follow_tables');
  } catch {
    await transaction.query('rollback to savepoint follow_tables');
    return;
  }
  for (const table of joined) await followTable(transaction, table);
  for (const table of left) await releaseTable(transaction, table);
}

function trackedTables(metadata: Metadata): QualifiedName[] {
  return (metadata.sources[0]?.tables ?? []).map((entry) => entry.table);
}
