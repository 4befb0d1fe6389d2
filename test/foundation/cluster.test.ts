import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { engineEnv, http, spawnEngineProcess, testPrefix, type EngineProcess } from '../harness/engine.js';
import { Bus } from '../../src/bus/bus.js';
import { ACTOR_NAMES } from '../../src/config/options.js';
import { createLogger } from '../../src/log/logger.js';
import { inject } from 'vitest';
import type { Heartbeat } from '../../src/monitor/messages.js';

let db: TestDatabase;
let first: EngineProcess;
let second: EngineProcess;
const prefix = testPrefix();

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table author (id serial primary key, name text)');
  const env = engineEnv(db.url, prefix, { SERVICE_GRAPHQL_HEARTBEAT_MS: '300' });
  [first, second] = await Promise.all([spawnEngineProcess(env), spawnEngineProcess(env)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await db?.drop();
});

const metadata = (tables: unknown[]) => ({
  version: 3,
  sources: [{ name: 'default', kind: 'postgres', tables, configuration: { connection_info: { database_url: { from_env: 'SERVICE_GRAPHQL_DATABASE_URL' }, isolation_level: 'read-committed', use_prepared_statements: true } } }],
});

describe('two engine processes on one NATS and one database', () => {
  it('serves on the second the metadata replaced through the first, within a second', async () => {
    const wanted = metadata([{ table: { schema: 'public', name: 'author' } }]);
    const replaced = await http('POST', `${first.url}/v1/query`, { type: 'replace_metadata', args: wanted });
    expect(replaced.status).toBe(200);
    const started = Date.now();
    const exported = await http('POST', `${second.url}/v1/query`, { type: 'export_metadata', args: {} });
    expect(exported.json).toEqual(wanted);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('shows both instances and their actors in heartbeats and ping replies', async () => {
    const bus = await Bus.connect({ servers: inject('natsUrl'), prefix, name: 'cluster-test', log: createLogger('silent') });
    try {
      const replies = await bus.gather<Heartbeat>(bus.subjects.monitorPing, {}, 500);
      const instances = new Set(replies.map((reply) => reply.instance));
      expect(instances.size).toBe(2);
      // Each process runs every actor by default.
      expect(replies.map((reply) => reply.actor).sort()).toEqual([...ACTOR_NAMES, ...ACTOR_NAMES].sort());
      const beat = await new Promise<Heartbeat>((resolve) => bus.listen<Heartbeat>(bus.subjects.heartbeat('schema', '*'), resolve));
      expect(beat.actor).toBe('schema');
      expect(beat.handled).toBeGreaterThan(0);
      expect(beat.gauges).toHaveProperty('resource_version');
    } finally {
      await bus.close();
    }
  });
});
