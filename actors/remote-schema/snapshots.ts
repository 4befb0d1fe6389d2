import { createHash } from 'node:crypto';
import type { Pool } from '../../src/pg/pool.js';
import { inTransaction } from '../../src/pg/transaction.js';

const STORE_LOCK_KEY = 7_234_011;

/**
 * The remote-schema actor's store of introspection answers, in
 * `service_catalog.remote_schema_introspections`: each text kept once under its SHA-256,
 * its snapshot id. Messages name a snapshot by id rather than carry it (a large remote's
 * introspection is bigger than a NATS message), and every instance of the actor reads
 * any snapshot the cluster serves from here. A row is written when the remote answers,
 * outside any metadata transaction: which snapshot a remote is served from is the schema
 * actor's pointer, written with the metadata, so a row nobody points at changes nothing.
 */
export class SnapshotStore {
  readonly #db: Pool;

  private constructor(db: Pool) {
    this.#db = db;
  }

  static async open(db: Pool): Promise<SnapshotStore> {
    await inTransaction(db, async (client) => {
      await client.query('select pg_advisory_xact_lock($1)', [STORE_LOCK_KEY]);
      await client.query('create schema if not exists service_catalog');
      await client.query(`create table if not exists service_catalog.remote_schema_introspections (
        snapshot text primary key,
        introspection text not null,
        stored_at timestamptz not null default clock_timestamp()
      )`);
    });
    return new SnapshotStore(db);
  }

  /** Keeps `introspection` (if it is not kept already) and returns its snapshot id. */
  async store(introspection: string): Promise<string> {
    const snapshot = createHash('sha256').update(introspection).digest('hex');
    await this.#db.query(
      'insert into service_catalog.remote_schema_introspections (snapshot, introspection) values ($1, $2) on conflict (snapshot) do nothing',
      [snapshot, introspection],
    );
    return snapshot;
  }

  /** The stored introspection answer; null when no such snapshot is stored. */
  async read(snapshot: string): Promise<string | null> {
    const result = await this.#db.query<{ introspection: string }>('select introspection from service_catalog.remote_schema_introspections where snapshot = $1', [snapshot]);
    return result.rows[0]?.introspection ?? null;
  }
}
