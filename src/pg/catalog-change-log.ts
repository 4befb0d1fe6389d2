import type { Pool, PoolClient } from './pool.js';
import { inTransaction } from './transaction.js';

/**
 * The catalog change log: an event trigger on `ddl_command_end` that notes the id of every
 * transaction that ran DDL in `service_catalog.catalog_changes`, so that whether the
 * catalog changed is read from a small table instead of a scan of the system catalogs
 * (25-35 ms at 5,000 tables, on every metadata operation). Only a superuser may create an
 * event trigger: elsewhere the engine scans (catalog-cache.ts), as it does when the trigger
 * has been dropped, disabled or altered.
 */
export const CHANGE_LOG_TRIGGER = 'service_catalog_ddl';

/** Serialises the installation across instances starting together (an arbitrary constant). */
const INSTALL_LOCK_KEY = 7_234_003;

/**
 * Past this many rows a read empties the log, in the statement that reads it, so that each
 * read stays a scan of a few pages.
 */
const PRUNE_AT = 1_000;

/** The rows' part of the fingerprint once a read has emptied the log. */
const EMPTY = '0:0';

/**
 * Publications are no part of what the introspection reads, and the engine changes them
 * itself on every table tracked; a refreshed materialized view keeps its shape. A failure
 * to note a change (the log's table dropped) must not refuse the user's DDL: it warns, and
 * the read then finds the log broken and scans.
 */
const FUNCTION_BODY = `
begin
  if tg_tag in ('CREATE PUBLICATION', 'ALTER PUBLICATION', 'DROP PUBLICATION', 'REFRESH MATERIALIZED VIEW') then
    return;
  end if;
  insert into service_catalog.catalog_changes (xid) values (pg_catalog.pg_current_xact_id()) on conflict do nothing;
exception when others then
  raise warning 'service_catalog.note_catalog_change could not note a catalog change: %', sqlerrm;
end
`;

/**
 * The trigger and the log's table, when the trigger is there as this engine installs it
 * (enabled always, with this function body) and the table too, readable and prunable by the
 * reading role (a superuser may have installed it for an engine that now runs as another
 * role): their ids and the trigger's row version. A trigger dropped and made again, or
 * disabled and enabled again, missed the DDL in between, so its identity is part of the
 * fingerprint. (has_table_privilege with a list of privileges asks for any one of them.)
 */
const IDENTITY_SQL = `
select t.oid || '.' || t.xmin || '.' || pg_catalog.to_regclass('service_catalog.catalog_changes')::oid as identity
  from pg_catalog.pg_event_trigger t join pg_catalog.pg_proc p on p.oid = t.evtfoid
 where t.evtname = '${CHANGE_LOG_TRIGGER}' and t.evtevent = 'ddl_command_end' and t.evtenabled = 'A' and p.prosrc = $1
   and pg_catalog.has_table_privilege(pg_catalog.to_regclass('service_catalog.catalog_changes'), 'SELECT')
   and pg_catalog.has_table_privilege(pg_catalog.to_regclass('service_catalog.catalog_changes'), 'DELETE')`;

/**
 * The trigger's identity and the log's rows (count and a sum of hashed ids) as one
 * snapshot sees them, and whether the statement removed exactly those rows: a row
 * committed after the snapshot is neither counted nor removed, so it still changes the
 * next read.
 */
const READ_SQL = `
with pruned as (
  delete from service_catalog.catalog_changes
   where (select count(*) from service_catalog.catalog_changes) >= ${PRUNE_AT}
  returning 1
)
select (${IDENTITY_SQL}) || ':' || count(*) || ':' || coalesce(sum(pg_catalog.hashint8extended(xid::text::bigint, 0)), 0) as fingerprint,
       (${IDENTITY_SQL}) || ':${EMPTY}' as emptied,
       (select count(*) from pruned) > 0 as pruned
  from service_catalog.catalog_changes`;

export interface ChangeLogRead {
  /** The trigger's identity and the log's rows before the read. */
  fingerprint: string;
  /** The fingerprint of what is left once the read's transaction commits: the log emptied, or as it was. */
  after: string;
}

/**
 * Installs the log's table, function and trigger, or leaves them as they are when intact;
 * returns whether the trigger is in place (false: the role may not create event triggers).
 */
export async function installCatalogChangeLog(pool: Pool): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock($1)', [INSTALL_LOCK_KEY]);
    if ((await changeLogIdentity(client)) !== null) return true;
    await client.query('savepoint change_log');
    try {
      await client.query('create schema if not exists service_catalog');
      await client.query('create table if not exists service_catalog.catalog_changes (xid xid8 primary key)');
      await client.query(`create or replace function service_catalog.note_catalog_change() returns event_trigger
        language plpgsql security definer set search_path = pg_catalog, pg_temp as $body$${FUNCTION_BODY}$body$`);
      await client.query(`drop event trigger if exists ${CHANGE_LOG_TRIGGER}`);
      await client.query(`create event trigger ${CHANGE_LOG_TRIGGER} on ddl_command_end execute function service_catalog.note_catalog_change()`);
      // Also under session_replication_role = replica, which some migration and restore tools set.
      await client.query(`alter event trigger ${CHANGE_LOG_TRIGGER} enable always`);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code !== '42501') throw error;
      await client.query('rollback to savepoint change_log');
      return false;
    }
  });
}

/** The trigger's and the log's identity, or null when they are not as this engine installs them. */
async function changeLogIdentity(db: Pool | PoolClient): Promise<string | null> {
  const result = await db.query<{ identity: string }>(IDENTITY_SQL, [FUNCTION_BODY]);
  return result.rows[0]?.identity ?? null;
}

/**
 * The log's fingerprint, or null when the trigger is not intact and only a scan will tell.
 * The first look keeps the read from naming a table that is not there, which would fail
 * the caller's transaction.
 */
export async function readChangeLog(db: Pool | PoolClient): Promise<ChangeLogRead | null> {
  if ((await changeLogIdentity(db)) === null) return null;
  const result = await db.query<{ fingerprint: string | null; emptied: string | null; pruned: boolean }>(READ_SQL, [FUNCTION_BODY]);
  const row = result.rows[0]!;
  if (row.fingerprint === null || row.emptied === null) return null;
  return { fingerprint: row.fingerprint, after: row.pruned ? row.emptied : row.fingerprint };
}
