import type { KV } from '@nats-io/kv';
import type { Logger } from '../../../src/log/logger.js';
import { METADATA_WRITE_LOCK, type MetadataStore } from '../../../src/metadata/store.js';
import type { Metadata } from '../../../src/metadata/types.js';
import type { Pool } from '../../../src/pg/pool.js';
import { inTransaction } from '../../../src/pg/transaction.js';
import { METADATA_TABLE, PUBLICATION } from '../../../src/pg/replication/names.js';
import { TriggerSet } from '../trigger-set.js';
import type { ChangeEvents } from './change-events.js';
import type { ChangeFeedSink } from './change-feed.js';
import { LEASE_RENEW_MS, ReplicationLease } from './lease.js';
import { currentSlotName, dropSlot, ensurePublication, ensureSlot, reconcilePublication, slotExists } from '../../../src/pg/replication/publication.js';
import { ReplicationReader } from './reader.js';
import { parseLsn } from './lsn.js';
import { ensureTriggerHistory, forgetTriggers, recordTriggers, triggersAt } from './trigger-history.js';
import type { ValueConverter } from './values.js';

/**
 * Runs capture on the one instance that holds the lease: while the metadata has
 * triggers, or subscriptions want the change feed, it keeps the publication in step,
 * makes sure the slot exists and keeps a ReplicationReader on it (restarting it after
 * PostgreSQL or NATS trouble); when neither needs it any more it drops the slot, so no
 * WAL is kept for nobody.
 */
export class CaptureSupervisor {
  /** The triggers capture matches changes against, as of the WAL position being read. */
  triggers = new TriggerSet(null);
  #reader: ReplicationReader | null = null;
  #lease: ReplicationLease | null = null;
  #timer: NodeJS.Timeout | null = null;
  #renewTimer: NodeJS.Timeout | null = null;
  #renewing: Promise<boolean> | null = null;
  #ticking = false;
  #stopped = false;
  #round: Promise<void> = Promise.resolve();
  #slot: string | null = null;
  #lagBytes: number | null = null;
  #lagSeconds: number | null = null;
  #reconciledVersion = -1;

  constructor(
    private readonly deps: {
      pool: Pool;
      connectionString: string;
      store: MetadataStore;
      kv: () => Promise<KV>;
      instance: string;
      /**
       * Whether the current metadata has any trigger (the delivery side's view), whether
       * subscriptions want the change feed now, and whether they did lately (the slot is
       * kept a while after, rather than made again for the next subscription).
       */
      wanted: () => { hasTriggers: boolean; feedWanted: boolean; feedWantedLately: boolean; resourceVersion: number };
      events: ChangeEvents;
      /** Hears each committed transaction's tables, and when reading starts and stops. */
      feed: ChangeFeedSink;
      values: ValueConverter;
      announce: (kind: string, detail: Record<string, unknown>) => void;
      log: Logger;
    },
  ) {}

  get holdsLease(): boolean {
    return this.#lease?.held === true;
  }

  get reading(): boolean {
    return this.#reader !== null;
  }

  get lagBytes(): number | null {
    return this.#lagBytes;
  }

  /** How far behind the slot's confirmed position is in time: the walsender's replay lag, 0 once caught up. */
  get lagSeconds(): number | null {
    return this.#lagSeconds;
  }

  get unstored(): number {
    return this.#reader?.unstored ?? 0;
  }

  start(): void {
    this.#timer = setInterval(() => void this.tick(), LEASE_RENEW_MS);
    // Renewal runs on its own: a slow capture round (a reconnect, a busy pool) must not let the lease lapse.
    this.#renewTimer = setInterval(() => void this.#renew(), LEASE_RENEW_MS);
    void this.tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    if (this.#renewTimer !== null) clearInterval(this.#renewTimer);
    // A round under way could start a reader after this one is stopped, holding the slot until the process exits.
    await this.#round;
    await this.#stopReader();
    await this.#lease?.release();
  }

  /**
   * A round at once after a metadata change that may start, stop or reconcile reading. With
   * no trigger, no feed wanted and no lease held, a round only looks for a slot left behind,
   * which the periodic round does within a second: every metadata operation would otherwise
   * pay that look.
   */
  metadataChanged(): Promise<void> {
    const wanted = this.deps.wanted();
    if (!wanted.hasTriggers && !wanted.feedWanted && !this.holdsLease) return Promise.resolve();
    return this.tick();
  }

  /** One round: take or renew the lease, then start, keep or stop reading. */
  tick(): Promise<void> {
    if (this.#ticking || this.#stopped) return this.#round;
    this.#ticking = true;
    this.#round = this.#runRound().finally(() => (this.#ticking = false));
    return this.#round;
  }

  async #runRound(): Promise<void> {
    try {
      const wanted = this.deps.wanted();
      const reading = wanted.hasTriggers || wanted.feedWanted;
      const slot = (this.#slot ??= await currentSlotName(this.deps.pool));
      if (!reading && !this.holdsLease && !(await slotExists(this.deps.pool, slot))) return;
      this.#lease ??= new ReplicationLease(await this.deps.kv(), this.deps.instance);
      if (!(await this.#renew())) return;
      if (!reading) {
        await this.#stopReader();
        if (!wanted.feedWantedLately && (await this.#dropSlotIfUnused(slot))) await this.#lease.release();
        return;
      }
      if (this.#reconciledVersion !== wanted.resourceVersion) await this.#reconcile();
      if (this.#reader === null) await this.#startReader(slot);
      await this.#measureLag(slot);
    } catch (error) {
      this.deps.log.warn({ err: error }, 'event capture round failed; retrying');
    }
  }

  /** Takes or renews the lease (one attempt at a time); stops reading the moment it is lost. */
  async #renew(): Promise<boolean> {
    const lease = this.#lease;
    if (lease === null) return false;
    this.#renewing ??= lease.tick().finally(() => (this.#renewing = null));
    const held = await this.#renewing;
    if (!held && this.#reader !== null) {
      this.deps.log.warn('replication lease lost; stopping capture');
      this.deps.announce('triggers.lease', { held: false, instance: this.deps.instance });
      await this.#stopReader();
    }
    return held;
  }

  /**
   * Removes from the publication the tables that lost their last trigger (clear_metadata,
   * untrack_table) and adds any that lack it. Every operation that adds a trigger does so
   * in its own transaction; this is the safety net. It runs under the metadata writers'
   * lock against the metadata as stored, never a possibly stale copy: reconciling with an
   * older version could drop a table a concurrent create_event_trigger just added. A
   * writer holding the lock only defers it to the next round.
   */
  async #reconcile(): Promise<void> {
    const reconciled = await inTransaction(this.deps.pool, async (client) => {
      const locked = await client.query<{ locked: boolean }>('select pg_try_advisory_xact_lock($1) as locked', [METADATA_WRITE_LOCK]);
      if (locked.rows[0]?.locked !== true) return null;
      const stored = await this.deps.store.readTriggerView();
      await reconcilePublication(client, new TriggerSet(stored.metadata).tables(), await this.deps.store.readTrackedTables());
      return stored.resourceVersion;
    });
    if (reconciled !== null) this.#reconciledVersion = reconciled;
  }

  async #startReader(slot: string): Promise<void> {
    await ensurePublication(this.deps.pool);
    await ensureSlot(this.deps.pool, slot);
    const state = await this.deps.pool.query<{ lsn: string | null; active: boolean }>(
      'select confirmed_flush_lsn::text as lsn, active from pg_replication_slots where slot_name = $1',
      [slot],
    );
    // The previous reader's connection may still hold the slot (it was just killed): next round.
    if (state.rows[0]?.active === true) return;
    const startLsn = parseLsn(state.rows[0]?.lsn);
    await ensureTriggerHistory(this.deps.pool);
    // The triggers as of where reading resumes; the WAL brings every later change of them.
    this.triggers = new TriggerSet((await triggersAt(this.deps.pool, startLsn)) ?? (await this.deps.store.readTriggerView()).metadata);
    await this.deps.values.load(this.deps.pool);
    const reader = new ReplicationReader({
      connectionString: this.deps.connectionString,
      slot,
      publication: PUBLICATION,
      sink: this.deps.events,
      onMetadata: (json, commitLsn) => {
        let metadata: Metadata;
        try {
          metadata = JSON.parse(json) as Metadata;
        } catch (error) {
          this.deps.log.error({ err: error }, 'metadata row in the replication stream is not JSON; triggers unchanged');
          return Promise.resolve();
        }
        this.triggers = new TriggerSet(metadata);
        return this.#recordTriggers(slot, commitLsn, metadata);
      },
      isMetadataTable: (schema, table) => schema === METADATA_TABLE.schema && table === METADATA_TABLE.name,
      onCommit: (tables, commitLsn) => this.deps.feed.committed(tables, commitLsn),
      startLsn,
      log: this.deps.log,
    });
    this.#reader = reader;
    this.deps.feed.started();
    this.deps.log.info({ slot }, 'reading the replication slot');
    this.deps.announce('triggers.lease', { held: true, instance: this.deps.instance, slot });
    reader.ended.then(
      () => this.#readerEnded(reader, null),
      (error: unknown) => this.#readerEnded(reader, error),
    );
  }

  /** Keeps trying while this process reads the slot: the metadata change's commit is confirmed only once it is recorded. */
  async #recordTriggers(slot: string, commitLsn: bigint, metadata: Metadata): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await recordTriggers(this.deps.pool, slot, commitLsn, metadata);
      } catch (error) {
        if (this.#stopped || this.#reader === null) throw error;
        if (attempt % 10 === 0) this.deps.log.warn({ err: error }, 'cannot record the triggers of a metadata change yet; retrying');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  #readerEnded(reader: ReplicationReader, error: unknown): void {
    if (this.#reader !== reader) return;
    this.#reader = null;
    this.deps.feed.stopped();
    void reader.stop();
    this.deps.log.warn({ err: error }, 'replication stream ended; reconnecting');
  }

  async #stopReader(): Promise<void> {
    const reader = this.#reader;
    this.#reader = null;
    if (reader !== null) this.deps.feed.stopped();
    await reader?.stop();
  }

  /** Drops the slot if the stored metadata (read under the metadata writers' lock) has no trigger. */
  async #dropSlotIfUnused(slot: string): Promise<boolean> {
    const dropped = await inTransaction(this.deps.pool, async (client) => {
      await client.query('select pg_advisory_xact_lock($1)', [METADATA_WRITE_LOCK]);
      const stored = await this.deps.store.readTriggerView();
      const gone = new TriggerSet(stored.metadata).size === 0 ? await dropSlot(client, slot) : false;
      if (gone) await reconcilePublication(client, [], await this.deps.store.readTrackedTables());
      return gone;
    });
    if (dropped) await forgetTriggers(this.deps.pool).catch(() => undefined);
    return dropped;
  }

  async #measureLag(slot: string): Promise<void> {
    // PostgreSQL times the walsender's lag from the reader's confirmations; it is null again once the reader has caught up.
    const result = await this.deps.pool.query<{ lag: string | null; seconds: string | null }>(
      `select pg_wal_lsn_diff(pg_current_wal_lsn(), s.confirmed_flush_lsn)::text as lag,
              case when s.active_pid is null then null
                   else coalesce(extract(epoch from coalesce(r.replay_lag, r.flush_lag, r.write_lag)), 0) end::text as seconds
         from pg_replication_slots s left join pg_stat_replication r on r.pid = s.active_pid
        where s.slot_name = $1`,
      [slot],
    );
    const row = result.rows[0];
    this.#lagBytes = row?.lag === null || row?.lag === undefined ? null : Number(row.lag);
    this.#lagSeconds = row === undefined || row.seconds === null ? null : Number(row.seconds);
  }
}
