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

/** A fresh, empty database on the run's PostgreSQL, so each test file starts clean. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('postgresUrl');
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
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
