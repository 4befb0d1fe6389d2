import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: 'sql-secret' } });
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

const runSql = (sql: string, extra: Record<string, unknown> = {}) => engine.query({ type: 'run_sql', args: { sql, ...extra } });

async function tableExists(name: string): Promise<boolean> {
  const result = await db.sql('select to_regclass($1) is not null as found', [name]);
  return result.rows[0].found;
}

describe('run_sql', () => {
  it('answers CommandOk for statements without rows', async () => {
    const result = await runSql('create table person (id serial primary key, name text, born date)');
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ result_type: 'CommandOk', result: null });
  });

  it('answers TuplesOk with a header row and every value as text, NULL for null, for the last statement', async () => {
    const result = await runSql(`insert into person (name, born) values ('Ada', '1815-12-10'), (null, null); select id, name, born from person order by id`);
    expect(result.json).toEqual({ result_type: 'TuplesOk', result: [['id', 'name', 'born'], ['1', 'Ada', '1815-12-10'], ['2', 'NULL', 'NULL']] });
  });

  it('reports a SQL error as postgres-error with the server message, and commits nothing of it', async () => {
    const result = await runSql('insert into person (name) values (\'Bob\'); select * from no_such_table');
    expect(result.status).toBe(400);
    expect(result.json.code).toBe('postgres-error');
    expect(result.json.error).toBe('relation "no_such_table" does not exist');
    expect(result.json.internal.error.status_code).toBe('42P01');
    expect((await db.sql("select count(*)::int as n from person where name = 'Bob'")).rows[0].n).toBe(0);
  });

  it('is refused to non-admin roles', async () => {
    const result = await engine.query({ type: 'run_sql', args: { sql: 'select 1' } }, { 'x-service-admin-secret': 'sql-secret', 'x-service-role': 'user' });
    expect(result.status).toBe(400);
    expect(result.json.code).toBe('access-denied');
  });

  it('with read_only, refuses to write', async () => {
    const result = await runSql("insert into person (name) values ('Eve')", { read_only: true });
    expect(result.json.code).toBe('postgres-error');
    expect(result.json.error).toMatch(/read-only transaction/);
  });

  it('refuses to drop a tracked table (the drop is rolled back) unless cascade, which untracks it', async () => {
    await engine.query({ type: 'track_table', args: { name: 'person' } }).then((r) => expect(r.status).toBe(200));
    const refused = await runSql('drop table person');
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('dependency-error');
    expect(refused.json.error).toBe('cannot drop due to the following dependent objects : table person');
    expect(await tableExists('person')).toBe(true);

    const cascaded = await runSql('drop table person', { cascade: true });
    expect(cascaded.status).toBe(200);
    expect(await tableExists('person')).toBe(false);
    const exported = await engine.query({ type: 'export_metadata', args: {} });
    expect(exported.json.sources[0].tables).toEqual([]);
    expect((await engine.query({ type: 'get_inconsistent_metadata', args: {} })).json).toEqual([]);
  });

  it('in a bulk, creates a table and tracks it in one request', async () => {
    const result = await engine.query({
      type: 'bulk',
      args: [
        { type: 'run_sql', args: { sql: 'create table city (id int primary key, name text)' } },
        { type: 'track_table', args: { name: 'city' } },
      ],
    });
    expect(result.status).toBe(200);
    expect(result.json).toEqual([{ result_type: 'CommandOk', result: null }, { message: 'success' }]);
  });

  it('leaves the engine able to run its own statements after the SQL deallocates them', async () => {
    // Operations before it prepare the engine's named statements on the pooled connections.
    await runSql('create table depot (id int primary key, name text)');
    for (let round = 0; round < 3; round++) {
      const result = await engine.query({
        type: 'bulk',
        args: [
          { type: 'run_sql', args: { sql: `deallocate all; alter table depot add column c${round} int` } },
          { type: 'track_table', args: { name: 'depot' } },
          { type: 'untrack_table', args: { table: 'depot' } },
        ],
      });
      expect(result.status, JSON.stringify(result.json)).toBe(200);
    }
    expect((await engine.query({ type: 'track_table', args: { name: 'depot' } })).status).toBe(200);
    const answer = await engine.graphql({ query: '{ depot { id c2 } }' });
    expect(answer.json).toEqual({ data: { depot: [] } });
    expect((await engine.query({ type: 'untrack_table', args: { table: 'depot' } })).status).toBe(200);
  });

  it('in a failing bulk, commits neither the SQL nor the metadata', async () => {
    const result = await engine.query({
      type: 'bulk',
      args: [
        { type: 'run_sql', args: { sql: 'create table town (id int primary key)' } },
        { type: 'track_table', args: { name: 'town' } },
        { type: 'track_table', args: { name: 'no_such_table' } },
      ],
    });
    expect(result.status).toBe(400);
    expect(result.json.path).toBe('$.args[2].args.table');
    expect(await tableExists('town')).toBe(false);
    const exported = await engine.query({ type: 'export_metadata', args: {} });
    expect(exported.json.sources[0].tables.map((t: { table: { name: string } }) => t.table.name)).toEqual(['city']);
  });
});

describe('concurrent metadata changes through two instances', () => {
  it('loses neither: the loser of the race re-applies its operation on the winner\'s metadata', async () => {
    const second = await startTestEngine({ databaseUrl: db.url, prefix: engine.prefix, env: { SERVICE_GRAPHQL_ADMIN_SECRET: 'sql-secret' } });
    try {
      const names = Array.from({ length: 8 }, (_, i) => `race_${i}`);
      await runSql(names.map((name) => `create table ${name} (id int primary key);`).join('\n'));
      // Each instance serialises its own requests; across instances only the store's
      // resource_version decides, so these race for real.
      const results = await Promise.all(names.map((name, i) => (i % 2 === 0 ? engine : second).query({ type: 'track_table', args: { name } })));
      results.forEach((result) => expect(result.status).toBe(200));
      const exported = await second.query({ type: 'export_metadata', args: {} });
      const tracked = exported.json.sources[0].tables.map((t: { table: { name: string } }) => t.table.name);
      for (const name of names) expect(tracked).toContain(name);
    } finally {
      await second.stop();
    }
  });
});
