import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { engineEnv, http, spawnEngineProcess, testPrefix, type EngineProcess } from '../harness/engine.js';

/**
 * The rate limit holds across two engine processes of one cluster (issue 14): their
 * counts are one, in JetStream KV, whichever process a client's requests reach.
 */
let database: TestDatabase;
let first: EngineProcess;
let second: EngineProcess;
const ADMIN = { 'x-service-admin-secret': 'rate-secret' };
const user = (id: string) => ({ ...ADMIN, 'x-service-role': 'user', 'x-service-user-id': id });
const QUERY = { query: '{ note { id } }' };

beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql("create table note (id integer primary key); insert into note values (1)");
  const env = engineEnv(database.url, testPrefix(), { SERVICE_GRAPHQL_ADMIN_SECRET: 'rate-secret' });
  [first, second] = await Promise.all([spawnEngineProcess(env), spawnEngineProcess(env)]);
  const setup = await http('POST', `${first.url}/v1/query`, {
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'note' } },
      { type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { columns: ['id'], filter: {} } } },
      { type: 'set_api_limits', args: { rate_limit: { global: { max_reqs_per_min: 5, unique_params: ['x-service-user-id'] } } } },
    ],
  }, ADMIN);
  expect(setup.json).toEqual(Array(3).fill({ message: 'success' }));
  // A metadata operation brings the other process up to the stored version (read-your-writes).
  expect((await http('POST', `${second.url}/v1/query`, { type: 'export_metadata', args: {} }, ADMIN)).json.api_limits).toBeDefined();
}, 120_000);

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await database?.drop();
});

describe('a rate limit across two engine processes', () => {
  it('admits a client\'s first 5 operations of the minute in all, wherever they land, and refuses the rest', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => http('POST', `${(index % 2 === 0 ? first : second).url}/v1/graphql`, QUERY, user('7'))),
    );
    const served = answers.filter((answer) => answer.json.data !== undefined);
    const refused = answers.filter((answer) => answer.json.errors?.[0]?.extensions?.code === 'rate-limit-exceeded');
    expect(served).toHaveLength(5);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.json.errors[0].message).toBe('rate limit of 5 exceeded');
    // Another client's count is its own.
    expect((await http('POST', `${second.url}/v1/graphql`, QUERY, user('8'))).json).toEqual({ data: { note: [{ id: 1 }] } });
  });

  it('counts by the socket address unless proxy headers are trusted: a forged x-forwarded-for changes nothing', async () => {
    expect((await http('POST', `${first.url}/v1/query`, { type: 'set_api_limits', args: { rate_limit: { global: { max_reqs_per_min: 2, unique_params: 'IP' } } } }, ADMIN)).json).toEqual({ message: 'success' });
    await http('POST', `${second.url}/v1/query`, { type: 'export_metadata', args: {} }, ADMIN);
    const forged = (index: number) => ({ ...user('9'), 'x-forwarded-for': `198.51.100.${index}`, 'x-real-ip': `198.51.100.${index}` });
    const answers = [];
    for (let index = 0; index < 4; index++) answers.push((await http('POST', `${(index % 2 === 0 ? first : second).url}/v1/graphql`, QUERY, forged(index))).json);
    expect(answers.filter((answer) => answer.errors?.[0]?.extensions?.code === 'rate-limit-exceeded')).toHaveLength(2);
  });
});
