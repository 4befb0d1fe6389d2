import { afterAll, beforeAll, expect } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

export interface SqlFixture {
  database: TestDatabase;
  engine: TestEngine;
}

/**
 * A database of its own built by `sql`, and an engine over it given the metadata
 * `commands` (one `bulk`, which must succeed); both go when the file's tests end.
 */
export function useSqlFixture(sql: string, commands: unknown[]): () => SqlFixture {
  let fixture: SqlFixture | undefined;
  beforeAll(async () => {
    const database = await createTestDatabase();
    await database.sql(sql);
    const engine = await startTestEngine({ databaseUrl: database.url });
    fixture = { database, engine };
    const setup = await engine.query({ type: 'bulk', args: commands });
    expect(setup.status).toBe(200);
  });
  afterAll(async () => {
    await fixture?.engine.stop();
    await fixture?.database.drop();
  });
  return () => fixture!;
}

/** Hasura's answer to a refused GraphQL request. */
export const graphqlFailure = (message: string, path: string, code = 'validation-failed') => ({ errors: [{ message, extensions: { path, code } }] });

/** `{ type, args: { table } }` per table: tracking them all. */
export const trackTables = (...tables: string[]) => tables.map((table) => ({ type: 'track_table', args: { table } }));
