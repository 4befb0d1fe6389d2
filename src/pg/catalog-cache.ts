import { batchedChangeLogRead, changeLogReadOf, plainReadRefused, pruneChangeLog, readChangeLog, UNDEFINED_PREPARED_STATEMENT, type BatchedRead, type ChangeLogRead, type ReadRow } from './catalog-change-log.js';
import { introspectCatalog, type Catalog } from './catalog.js';
import type { Pool, PoolClient } from './pool.js';

/**
 * The system catalogs the introspection reads (catalog.ts): relations, columns, types,
 * constraints, comments, functions, enums, and the rules and triggers that decide whether
 * a view is updatable.
 */
const CATALOG_TABLES = ['pg_namespace', 'pg_class', 'pg_attribute', 'pg_attrdef', 'pg_type', 'pg_constraint', 'pg_description', 'pg_enum', 'pg_proc', 'pg_rewrite', 'pg_trigger'];

/**
 * Rows the introspection never reads, left out of the fingerprint to keep it cheap: system
 * columns, indexes and sequences, and the triggers behind foreign keys. A row that moves
 * in or out of these sets still changes the fingerprint.
 */
const LEFT_OUT: Readonly<Record<string, string>> = {
  pg_attribute: 'where attnum > 0',
  pg_class: "where relkind in ('r', 'p', 'v', 'm', 'f')",
  pg_trigger: 'where not tgisinternal',
};

/**
 * A fingerprint of every row of those catalogs as the caller's snapshot sees them: DDL
 * replaces a catalog row by a new version, written by its transaction (a new `xmin`), or
 * adds or removes rows, so any change the introspection could see changes the count or the
 * sum of the rows' hashed `xmin`s. Reading it costs a scan of the catalogs, far less than
 * introspecting them (seconds at thousands of tables). The row's place (`ctid`) is left
 * out: it also moves without a change (VACUUM FULL), and hashing it doubled the cost; two
 * versions of a row by one transaction differ only there, and the engine reads a catalog
 * inside a transaction that runs DDL only to introspect it whole (run_sql, reload).
 *
 * The `xmin` is hashed as a number, not as its text: at 5,000 tables on PostgreSQL 15 the
 * text conversion took 100-140 ms of pg_attribute's scan, the number 20-35 ms. PostgreSQL
 * has no cast from `xid` to a number, but `age(xmin)` is `now - xmin` (32-bit) against one
 * `now` for the whole transaction, so `age(xmin) - age('3')` modulo 2^32 is `3 - xmin`:
 * the same in every transaction, wraparound included. The rows initdb wrote (`xmin` 1, not a normal
 * transaction id) have an age of INT_MAX whatever `now` is, so they are left out of the sum
 * and still counted. The call of a parallel-unsafe function (which reads nothing the
 * fingerprint uses) keeps the plan serial: at thousands of tables PostgreSQL would scan
 * pg_attribute with a parallel worker, whose start cost ten times the scan on a small machine.
 */
const XMIN_NUMBER = "(pg_catalog.age(xmin)::bigint - now_xid.age + 4294967296) % 4294967296";
const FINGERPRINT_SQL = `select concat_ws(',', ${CATALOG_TABLES.map(
  (table) =>
    `(select count(*) || ':' || coalesce(sum(pg_catalog.hashint8extended(${XMIN_NUMBER}, 0)) filter (where pg_catalog.age(xmin) <> 2147483647), 0) from pg_catalog.${table} ${LEFT_OUT[table] ?? ''})`,
).join(', ')}) as fingerprint, pg_catalog.pg_current_xact_id_if_assigned() is null as serial_plan
  from (select pg_catalog.age('3'::xid)::bigint as age) now_xid`;

/** The change log as a batch of statements read it (CatalogCache.beginWithRead). */
export interface BatchedLogRead {
  read: ChangeLogRead | null;
}

export async function catalogFingerprint(db: Pool | PoolClient): Promise<string> {
  const result = await db.query<{ fingerprint: string }>(FINGERPRINT_SQL);
  return result.rows[0]!.fingerprint;
}

/**
 * The last catalog introspected, reused while the catalog is unchanged, so that a metadata
 * operation does not re-read thousands of tables it does not touch. Whether it changed is
 * read from the catalog change log where its trigger is installed and intact
 * (catalog-change-log.ts), else from the fingerprint of the system catalogs. Either is read
 * before the catalog: a change committed in between makes the kept catalog newer than its
 * fingerprint, never older, and the next read introspects again.
 */
export class CatalogCache {
  #kept: { fingerprint: string; catalog: Catalog } | null = null;
  #pruneDue = false;
  readonly #changeLog: boolean;
  /** How the change log is read in the writer's batch (beginWithRead); null: on its own. */
  #batched: BatchedRead | null = 'plain';

  /** `changeLog`: read the change log when it is intact (false: always scan). */
  constructor(options: { changeLog: boolean }) {
    this.#changeLog = options.changeLog;
  }

  /**
   * The database catalog as `db` sees it (inside its transaction, with its DDL); `force`
   * introspects whatever the fingerprint says. `logged`: the change log as a batch read it
   * on `db` a moment ago (beginWithRead), which spares the read's round trip.
   */
  async read(db: Pool | PoolClient, options: { force?: boolean; logged?: BatchedLogRead } = {}): Promise<Catalog> {
    const fingerprint = await this.#fingerprint(db, options.logged);
    if (options.force !== true && this.#kept !== null && this.#kept.fingerprint === fingerprint) return this.#kept.catalog;
    const catalog = await introspectCatalog(db);
    this.#kept = { fingerprint, catalog };
    return catalog;
  }

  /** The catalog the last read returned, which the next returns too if nothing changed since. */
  get kept(): Catalog | null {
    return this.#kept?.catalog ?? null;
  }

  /**
   * Empties the change log when a read found it due (outside any operation's transaction):
   * the kept catalog then goes with the emptied log's fingerprint, if it went with the log
   * as it was, so that emptying it does not introspect again here.
   */
  async prune(pool: Pool): Promise<void> {
    if (!this.#pruneDue) return;
    this.#pruneDue = false;
    const pruned = await pruneChangeLog(pool);
    if (pruned !== null && this.#kept !== null && this.#kept.fingerprint === `log:${pruned.before}`) this.#kept.fingerprint = `log:${pruned.after}`;
  }

  /**
   * Begins a batch of statements on `client` with `begin` (MetadataStore.beginWrite), the
   * change log's read given to it as its last statement (`also`, whose rows it returns as
   * `alsoRows`); returns what `begin` returned and the log as the batch read it, for `read`
   * (`logged`). The batch reads the log's table by name, until that fails (the table or its
   * sequence gone, or not the role's to read): it then reads through `query_to_xml` from then
   * on, which finds such a log broken rather than failing. Where the read cannot go in a batch
   * (the statement prepared for it is not on the server connection that ran the batch, as
   * behind a pooler in transaction mode), the batch is begun again without it, and this cache
   * reads the log on its own from then on. A failed batch is rolled back first, and `again`
   * then tells so: statements the caller queued on `client` behind the batch ran in between.
   */
  async beginWithRead<T extends { alsoRows: ReadRow[] }>(client: PoolClient, begin: (also?: string) => Promise<T>): Promise<{ begun: T; logged?: BatchedLogRead; again?: true }> {
    const read = this.#batched;
    if (!this.#changeLog || read === null) return { begun: await begin() };
    let also: string;
    try {
      also = await batchedChangeLogRead(client, read);
    } catch (error) {
      if (read !== 'plain' || !plainReadRefused(error)) throw error;
      this.#batched = 'tolerant';
      return this.beginWithRead(client, begin);
    }
    try {
      const begun = await begin(also);
      return { begun, logged: { read: changeLogReadOf(begun.alsoRows) } };
    } catch (error) {
      const instead = (error as { code?: string }).code === UNDEFINED_PREPARED_STATEMENT ? null : read === 'plain' && plainReadRefused(error) ? 'tolerant' : undefined;
      if (instead === undefined) throw error;
      await client.query('rollback');
      this.#batched = instead;
      return { ...(await this.beginWithRead(client, begin)), again: true };
    }
  }

  /** The two kinds are told apart, so that going from one to the other introspects. */
  async #fingerprint(db: Pool | PoolClient, batched: BatchedLogRead | undefined): Promise<string> {
    const logged = batched !== undefined ? batched.read : this.#changeLog ? await readChangeLog(db) : null;
    if (logged !== null) {
      this.#pruneDue ||= logged.pruneDue;
      return `log:${logged.fingerprint}`;
    }
    return `scan:${await catalogFingerprint(db)}`;
  }
}
