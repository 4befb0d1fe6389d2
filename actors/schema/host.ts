import type { ActorRequest } from '../../src/bus/actor-request.js';
import type { Logger } from '../../src/log/logger.js';
import type { MetadataStore, StoredMetadata } from '../../src/metadata/store.js';
import { normalizeMetadata } from '../../src/metadata/normalize.js';
import type { Metadata } from '../../src/metadata/types.js';
import type { Catalog } from '../../src/pg/catalog.js';
import { CatalogCache, type BatchedLogRead } from '../../src/pg/catalog-cache.js';
import type { ReadRow } from '../../src/pg/catalog-change-log.js';
import type { Pool, PoolClient } from '../../src/pg/pool.js';
import { checkConsistency, type ConsistencyReport } from './consistency/check.js';
import { EnumRowsReader } from './consistency/enum-rows.js';
import type { GraphqlEngineOptions } from './execution/engine.js';
import { RemoteDescriber } from './remote/descriptions.js';
import { withoutRemoteSnapshots, withRemoteCatalog, type RemoteServingOptions } from './remote/snapshot-pointers.js';
import { buildState, type SchemaState } from './state.js';

export interface Committed {
  resourceVersion: number;
}

/**
 * Holds the schema actor instance's current state and keeps it in step with the store:
 * after its own commits at once, after other instances' on `metadata.changed`, and before
 * every metadata operation by comparing versions (read-your-writes across instances).
 */
export class SchemaHost {
  #state: SchemaState;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #store: MetadataStore;
  readonly #db: Pool;
  readonly #log: Logger;
  readonly #remote: RemoteServingOptions;
  /** Settings every GraphQL engine this host builds is built with (inferred function permissions). */
  readonly #engine: GraphqlEngineOptions;
  readonly #describer: RemoteDescriber;
  readonly #enumRows: EnumRowsReader;
  readonly #catalogs: CatalogCache;
  /** Asks another actor (the remote-schema actor, for the consistency check) outside any request. */
  readonly #ask: () => ActorRequest;

  private constructor(state: SchemaState, store: MetadataStore, db: Pool, log: Logger, remote: RemoteServingOptions, engine: GraphqlEngineOptions, ask: () => ActorRequest, describer: RemoteDescriber, enumRows: EnumRowsReader, catalogs: CatalogCache) {
    this.#state = state;
    this.#catalogs = catalogs;
    this.#describer = describer;
    this.#enumRows = enumRows;
    this.#store = store;
    this.#db = db;
    this.#log = log;
    this.#remote = remote;
    this.#engine = engine;
    this.#ask = ask;
  }

  /** `catalogs`: whether to read the catalog change log; `remote`: how remote schemas are served here (permissions flag, outages found at start). */
  static async load(store: MetadataStore, db: Pool, log: Logger, catalogs: { changeLog: boolean }, remote: RemoteServingOptions, engine: GraphqlEngineOptions, ask: () => ActorRequest): Promise<SchemaHost> {
    const describer = new RemoteDescriber();
    const enumRows = new EnumRowsReader();
    const cache = new CatalogCache(catalogs);
    const stored = await readNormalized(store);
    const catalog = await withRemoteCatalog(await cache.read(db), db, remote);
    const remotes = await describer.describe(stored.metadata, catalog, ask());
    const report = checkConsistency(stored.metadata, catalog, remotes, await enumRows.read(stored.metadata, catalog, db));
    return new SchemaHost(buildState(stored.resourceVersion, stored.metadata, catalog, report, engine), store, db, log, remote, engine, ask, describer, enumRows, cache);
  }

  get state(): SchemaState {
    return this.#state;
  }

  get db(): Pool {
    return this.#db;
  }

  /**
   * The database catalog with the cached remote schemas, both read through `client` when
   * given. The database part is introspected again only when the system catalogs changed
   * (CatalogCache), or always with `force` (reload_metadata, run_sql). `remoteSnapshots`
   * false leaves the remote schemas' pointers unread (withoutRemoteSnapshots). `logged`: the
   * change log as the writer's first round trip read it on `client` (beginWrite).
   */
  async introspect(client?: PoolClient, options: { force?: boolean; remoteSnapshots?: boolean; logged?: BatchedLogRead } = {}): Promise<Catalog> {
    const db = client ?? this.#db;
    const catalog = await this.#catalogs.read(db, options);
    return options.remoteSnapshots === false ? withoutRemoteSnapshots(catalog, this.#remote) : withRemoteCatalog(catalog, db, this.#remote);
  }

  /**
   * The catalog an operation on the served metadata would read (`introspect`) if the
   * database catalog did not change since the last read: the one kept, for an operation
   * applied while the writer's first round trip is on its way (query-runner.ts), which the
   * round trip's read of the change log then confirms. Null when no catalog is kept, or the
   * metadata has remote schemas, whose pointers are read with the catalog.
   */
  speculativeCatalog(): Catalog | null {
    const kept = this.#catalogs.kept;
    if (kept === null || (this.#state.metadata.remote_schemas ?? []).length > 0) return null;
    return withoutRemoteSnapshots(kept, this.#remote);
  }

  /**
   * Checks `metadata` against `catalog`, its remote schemas described by the remote-schema
   * actor (asked with `ask`), its enum tables' rows read through `reader` (the request's
   * transaction, when the catalog was read in it).
   */
  async check(metadata: Metadata, catalog: Catalog, ask: ActorRequest = this.#ask(), reader: Pool | PoolClient = this.#db): Promise<ConsistencyReport> {
    const remotes = await this.#describer.describe(metadata, catalog, ask);
    return checkConsistency(metadata, catalog, remotes, await this.#enumRows.read(metadata, catalog, reader));
  }

  /**
   * Begins a metadata writer's transaction on `client` (MetadataStore.beginWrite); returns
   * the stored version as of holding the writers' lock, and the catalog change log as read
   * in the same round trip, for `introspect` on `client` (`logged`); `again` where a failed
   * first batch was rolled back and begun again (CatalogCache.beginWithRead). `onQueued` is
   * called once the batch is queued on `client`: what is queued there after it runs inside
   * the transaction.
   */
  async beginWrite(client: PoolClient, onQueued?: () => void): Promise<{ version: number; logged?: BatchedLogRead; again?: true }> {
    const { begun, logged, again } = await this.#catalogs.beginWithRead(client, (also) => {
      // MetadataStore.beginWrite queues its batch before its first await.
      const batch = this.#store.beginWrite<ReadRow>(client, also);
      onQueued?.();
      return batch;
    });
    return { version: begun.version, ...(logged === undefined ? {} : { logged }), ...(again === undefined ? {} : { again }) };
  }

  /** Runs metadata operations of this instance one at a time. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Re-reads the store when it holds a newer version than `version` (read now when not given), and the catalog when asked. */
  async refresh(options: { catalog?: boolean; version?: number } = {}): Promise<void> {
    const version = options.version ?? (await this.#store.currentVersion());
    if (version === this.#state.resourceVersion && !options.catalog) return;
    const stored = version === this.#state.resourceVersion ? { resourceVersion: version, metadata: this.#state.metadata } : await readNormalized(this.#store);
    // Remote snapshots change with the version (a reload bumps it), so a newer version re-reads them.
    const catalog = options.catalog ? await this.introspect() : version === this.#state.resourceVersion ? this.#state.catalog : await withRemoteCatalog(this.#state.catalog, this.#db, this.#remote);
    if (stored.resourceVersion < this.#state.resourceVersion) return;
    const report = await this.check(stored.metadata, catalog);
    if (stored.resourceVersion < this.#state.resourceVersion) return;
    this.#state = buildState(stored.resourceVersion, stored.metadata, catalog, report, this.#engine);
    this.#log.info({ resourceVersion: stored.resourceVersion, catalog: options.catalog === true }, 'schema state reloaded');
  }

  /**
   * Writes new metadata (inside `transaction`) if nobody else wrote since `base`; returns
   * the new version, or null on a lost race. With `metadata` null only the catalog
   * changed (reload, run_sql): nothing is written and the version stays.
   */
  async write(base: SchemaState, metadata: Metadata | null, transaction: PoolClient | null): Promise<Committed | null> {
    if (metadata === null) return { resourceVersion: base.resourceVersion };
    const written = await this.#store.write(metadata, base.resourceVersion, transaction ?? undefined, base.metadata);
    return written === null ? null : { resourceVersion: written };
  }

  /**
   * Writes new metadata in `transaction` and commits it in one round trip
   * (MetadataStore.writeAndCommit): the version committed, or null when the write needed
   * more than one statement or lost a race, and the transaction was rolled back.
   */
  async writeAndCommit(base: SchemaState, metadata: Metadata, transaction: PoolClient): Promise<Committed | null> {
    const written = await this.#store.writeAndCommit(metadata, base.resourceVersion, transaction, base.metadata);
    return written === null ? null : { resourceVersion: written };
  }

  /**
   * Empties the catalog change log when the last read found it due, outside any operation's
   * transaction; a failure costs only a longer read next time.
   */
  async pruneCatalogChangeLog(): Promise<void> {
    await this.#catalogs.prune(this.#db).catch((error: unknown) => this.#log.warn({ err: error }, 'the catalog change log could not be emptied'));
  }

  /** Serves what a request committed, once its transaction has committed. */
  adopt(committed: Committed, metadata: Metadata, catalog: Catalog, report: ConsistencyReport): void {
    this.#state = buildState(committed.resourceVersion, metadata, catalog, report, this.#engine);
  }
}

/**
 * The stored metadata as the operations leave it (normalize.ts): its table entries are then
 * the ones the next operation keeps as they are, so that the write after a read changes the
 * entries that operation touched (store.ts), not every entry read.
 */
async function readNormalized(store: MetadataStore): Promise<StoredMetadata> {
  const stored = await store.read();
  return { resourceVersion: stored.resourceVersion, metadata: normalizeMetadata(stored.metadata) };
}
