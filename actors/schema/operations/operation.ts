import type { ActorRequest } from '../../../src/bus/actor-request.js';
import type { Logger } from '../../../src/log/logger.js';
import type { Metadata } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import type { Pool, PoolClient } from '../../../src/pg/pool.js';
import type { Session } from '../../../src/session/session.js';
import type { ConsistencyReport } from '../consistency/check.js';
import type { InconsistentObject } from '../consistency/inconsistency.js';
import type { RemoteFacts } from '../remote/descriptions.js';

/** Everything an operation may read; it changes metadata only by returning a new object. */
export interface OperationContext {
  /** The metadata as the operations before this one (in a bulk) left it. */
  readonly metadata: Metadata;
  /** The stored version the operation started from. */
  readonly resourceVersion: number;
  readonly catalog: Catalog;
  readonly inconsistencies: readonly InconsistentObject[];
  /** The remote-schema actor's descriptions of the remote schemas of `metadata`. */
  readonly remotes: RemoteFacts;
  readonly session: Session;
  readonly db: Pool;
  readonly log: Logger;
  /** Path of this operation's `args`: `$.args`, or `$.args[2].args` inside a bulk. */
  readonly argsPath: string;
  /**
   * The request's transaction (writing requests only): SQL run here commits together with
   * the new metadata, or not at all.
   */
  transaction(): Promise<PoolClient>;
  /** Where a read runs: the request's transaction when it has one (so it sees the writes before it), else the pool. */
  reader(): Pool | PoolClient;
  /** Re-reads the database catalog (inside the transaction, if one is open). */
  reloadCatalog(): Promise<Catalog>;
  /** Checks metadata against a catalog, its remote schemas described by the remote-schema actor. */
  check(metadata: Metadata, catalog: Catalog): Promise<ConsistencyReport>;
  /** Asks the actor that owns a check (functions, remote schemas, triggers) over the bus. */
  readonly request: ActorRequest;
}

/**
 * How the metadata an operation returns is checked against the database before it is
 * committed (compat-facts 2): most operations may not add an inconsistency; replace
 * (without allow_inconsistent_metadata) may leave none at all; reloads keep what they find.
 */
export type ConsistencyPolicy = 'no-new' | 'none-at-all' | 'allow';

export interface OperationOutcome {
  response: unknown;
  metadata?: Metadata;
  consistency?: ConsistencyPolicy;
  /** The operation changed the database itself (run_sql), so the catalog must be re-read. */
  catalogChanged?: boolean;
}

export interface Operation<A = never> {
  /** The `type` of the `/v1/query` request, e.g. `track_table`. */
  readonly type: string;
  /** The `version` it implements; omitted for version 1 (the default). */
  readonly version?: number;
  /** Id of the JSON Schema of `args` in `schemas/query/`. */
  readonly argsSchema: string;
  /** Reads metadata only: it needs no fresh look at the database catalog. */
  readonly readOnly?: boolean;
  /**
   * Reads or writes table rows under the session's permissions (the v1 data API): any role
   * may run it, beside metadata operations rather than queued behind them. The others are
   * admin only.
   */
  readonly dataApi?: boolean;
  /**
   * Runs SQL the caller wrote on the request's connection, which may change the session
   * beyond the transaction (`DEALLOCATE ALL` drops the named statements node-postgres
   * believes prepared, `SET` outlives it): that connection is closed, not pooled again.
   */
  readonly runsCallerSql?: boolean;
  /**
   * Reads nothing while run but its args, the context's metadata, catalog, inconsistencies
   * and remotes, `check` and reads through `reader`, and has no effect outside its returned
   * metadata (no `transaction`, `reloadCatalog`, `db` or `request`): it may be
   * applied while the transaction's first round trip is on its way, and applied again in
   * order when that round trip finds the state changed (query-runner.ts).
   */
  readonly appliesAhead?: boolean;
  /** Rewrites an older accepted form of the args into the current one before validation. */
  readonly upgradeArgs?: (args: unknown) => unknown;
  run(args: A, context: OperationContext): Promise<OperationOutcome>;
}

export const SUCCESS = { message: 'success' } as const;
