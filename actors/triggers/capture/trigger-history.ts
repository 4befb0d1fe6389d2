import type { Metadata } from '../../../src/metadata/types.js';
import type { Pool } from '../../../src/pg/pool.js';
import { formatLsn } from './lsn.js';

/**
 * The event triggers as of each metadata change the reader passed, by the commit LSN of
 * the change: what a new reader needs to match the WAL it reads again after a take-over
 * against the triggers of that time, not of now. The reader sees every later metadata
 * change in WAL order; only the start position has to be looked up.
 *
 * A row is written before the LSN of its transaction is confirmed (it is one of the
 * transaction's stores), so every metadata change up to the slot's confirmed position has
 * its row; rows past it are ignored. Only trigger definitions are kept.
 */
const TABLE = 'service_catalog.event_trigger_history';

export async function ensureTriggerHistory(pool: Pool): Promise<void> {
  await pool.query(`create table if not exists ${TABLE} (commit_lsn pg_lsn primary key, triggers json not null)`).catch((error: { code?: string }) => {
    // Two instances creating it at once: one wins (unique_violation on the catalog, or duplicate table).
    if (error.code !== '23505' && error.code !== '42P07') throw error;
  });
}

/** The part of `metadata` capture uses: the tables that have triggers, with them. */
function triggersOnly(metadata: Metadata): Metadata {
  const sources = metadata.sources.map((source) => ({ ...source, tables: source.tables.filter((table) => (table.event_triggers ?? []).length > 0).map((table) => ({ table: table.table, event_triggers: table.event_triggers })) }));
  return { ...metadata, sources } as Metadata;
}

/** Records the triggers of a metadata change committed at `commitLsn`, and forgets what the slot no longer needs. */
export async function recordTriggers(pool: Pool, slot: string, commitLsn: bigint, metadata: Metadata): Promise<void> {
  await pool.query(`insert into ${TABLE} (commit_lsn, triggers) values ($1, $2) on conflict (commit_lsn) do nothing`, [formatLsn(commitLsn), JSON.stringify(triggersOnly(metadata))]);
  await pool.query(
    `delete from ${TABLE} where commit_lsn < (select max(commit_lsn) from ${TABLE}
       where commit_lsn < (select confirmed_flush_lsn from pg_replication_slots where slot_name = $1))`,
    [slot],
  );
}

/**
 * The triggers as of WAL position `lsn` (a confirmed position: PostgreSQL sends again the
 * transactions whose commit record starts at or after it), or null when none was recorded.
 */
export async function triggersAt(pool: Pool, lsn: bigint): Promise<Metadata | null> {
  const result = await pool.query<{ triggers: string }>(`select triggers::text as triggers from ${TABLE} where commit_lsn < $1 order by commit_lsn desc limit 1`, [formatLsn(lsn)]);
  const row = result.rows[0];
  return row === undefined ? null : (JSON.parse(row.triggers) as Metadata);
}

/** With the slot dropped, its positions mean nothing. */
export async function forgetTriggers(pool: Pool): Promise<void> {
  await pool.query(`delete from ${TABLE}`);
}
