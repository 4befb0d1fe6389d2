import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool, type Pool } from '../../src/pg/pool.js';

export interface TestDatabase {
  /** Connection URL of the new database. */
  url: string;
  /** A small pool on it (json left as text, like the engine's), for set-up and read-back. */
  pool: Pool;
  /** Runs SQL on it (several statements allowed). */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  drop(): Promise<void>;
}

/** A fresh, empty database on the run's PostgreSQL (or the server of `adminUrl`), so each test file starts clean. */
export async function createTestDatabase(adminUrl: string = inject('postgresUrl')): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), { max: 4, applicationName: 'test' });
  return {
    url: url.toString(),
    pool,
    sql: (text, values) => pool.query(text, values),
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        // A logical slot (event triggers, the subscriptions' change feed) keeps a database
        // from being dropped; its reader has stopped with the engine, or stops soon.
        for (let attempt = 0; attempt < 100; attempt++) {
          const slots = await client.query<{ slot: string; active: boolean }>('select slot_name as slot, active from pg_replication_slots where database = $1', [name]);
          if (slots.rows.length === 0) break;
          for (const { slot, active } of slots.rows) if (!active) await client.query('select pg_drop_replication_slot($1)', [slot]).catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
