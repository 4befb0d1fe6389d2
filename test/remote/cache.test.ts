import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { addRemote, admin, SECRET, startRemoteWorld, type RemoteWorld } from './setup.js';

/**
 * The remote schema cache (interface 9.4-9.5): refreshed only by reload_remote_schema or
 * reload_metadata {reload_remote_schemas}, by every instance of the cluster; a remote down
 * at start or reload is inconsistent while the rest keeps serving.
 */
let world: RemoteWorld;
let second: TestEngine;

beforeAll(async () => {
  world = await startRemoteWorld();
  await world.ok({
    type: 'bulk',
    args: [
      { type: 'run_sql', args: { sql: "create table author (id integer primary key, name text not null); insert into author values (1, 'Ada');" } },
      { type: 'track_table', args: { name: 'author' } },
      addRemote('people', world.remote.url),
    ],
  });
  second = await startTestEngine({ databaseUrl: world.db.url, prefix: world.prefix, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET } });
});

afterAll(async () => {
  await second?.stop();
  await world?.stop();
});

const added = (engine: TestEngine) => engine.graphql({ query: '{ added }' }, admin).then((result) => result.json);
const inconsistent = () => world.ok({ type: 'get_inconsistent_metadata', args: {} }).then((result) => result.json);

async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('condition not met within 5 s');
}

describe('remote schema cache', () => {
  it('serves the cached schema on every instance until a reload', async () => {
    world.remote.version(2);
    // Another metadata change re-reads the store, but must not refresh the remote schema.
    await world.ok({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id'], filter: {} } } });
    expect((await added(world.engine)).errors[0].message).toBe("field 'added' not found in type: 'query_root'");
    expect((await added(second)).errors[0].message).toBe("field 'added' not found in type: 'query_root'");

    await world.ok({ type: 'reload_remote_schema', args: { name: 'people' } });
    expect(await added(world.engine)).toEqual({ data: { added: 'added in version 2' } });
    await eventually(async () => (await added(second)).data?.added === 'added in version 2');
  });

  it('refreshes through reload_metadata with reload_remote_schemas, from the other instance too', async () => {
    world.remote.version(1);
    const reloaded = await second.query({ type: 'reload_metadata', args: { reload_remote_schemas: true } }, admin);
    expect(reloaded.json).toMatchObject({ message: 'success', is_consistent: true });
    await eventually(async () => (await added(world.engine)).errors !== undefined);
    expect((await added(second)).errors[0].extensions.code).toBe('validation-failed');
  });

  it('lists a remote that is down at reload as inconsistent and keeps serving the rest', async () => {
    await world.remote.stop();
    const reloaded = await world.ok({ type: 'reload_remote_schema', args: { name: 'people' } });
    expect(reloaded.json).toEqual({ message: 'success' });
    const listed = await inconsistent();
    expect(listed).toEqual([expect.objectContaining({ type: 'remote_schema', definition: expect.objectContaining({ name: 'people' }) })]);
    expect(listed[0].reason).toContain('HTTP exception');
    expect((await world.engine.graphql({ query: '{ author { name } }' }, admin)).json).toEqual({ data: { author: [{ name: 'Ada' }] } });
    await eventually(async () => (await second.graphql({ query: '{ hello }' }, admin)).json.errors?.[0]?.extensions.code === 'validation-failed');
  });

  it('lists a remote that is down at start as inconsistent, until a reload finds it back', async () => {
    await world.remote.restart();
    await world.ok({ type: 'reload_metadata', args: { reload_remote_schemas: true } });
    expect(await inconsistent()).toEqual([]);
    await world.remote.stop();
    await second.stop();
    second = await startTestEngine({ databaseUrl: world.db.url, prefix: world.prefix, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET } });
    const listed = (await second.query({ type: 'get_inconsistent_metadata', args: {} }, admin)).json;
    expect(listed).toEqual([expect.objectContaining({ type: 'remote_schema' })]);
    expect((await second.graphql({ query: '{ author { name } }' }, admin)).json.data).toEqual({ author: [{ name: 'Ada' }] });

    await world.remote.restart();
    await second.query({ type: 'reload_remote_schema', args: { name: 'people' } }, admin);
    expect((await second.query({ type: 'get_inconsistent_metadata', args: {} }, admin)).json).toEqual([]);
    expect((await second.graphql({ query: '{ hello }' }, admin)).json).toEqual({ data: { hello: 'hello world' } });
  });
});
