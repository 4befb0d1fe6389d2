import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, testPrefix, type TestEngine } from '../harness/engine.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { addRemote, admin, asRole, SECRET } from './setup.js';

/**
 * The remote-schema actor owns remote schemas end to end: a schema actor that does not run
 * it asks over NATS for descriptions, role views and execution, and any instance of it
 * answers any request, however cold its caches (messages carry a definition and a snapshot
 * id, never the introspection).
 */
let db: TestDatabase;
let remote: FixtureServer;
let schemaOnly: TestEngine;
const remoteActors: TestEngine[] = [];
const prefix = testPrefix();
const env = { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS: 'true', SERVICE_GRAPHQL_BUS_TIMEOUT_MS: '3000' };

async function startRemoteActor(): Promise<TestEngine> {
  const started = await startTestEngine({ databaseUrl: db.url, prefix, env: { ...env, SERVICE_GRAPHQL_ACTORS: 'remote-schema' } });
  remoteActors.push(started);
  return started;
}

beforeAll(async () => {
  db = await createTestDatabase();
  remote = await startFixtureServer();
  schemaOnly = await startTestEngine({ databaseUrl: db.url, prefix, env: { ...env, SERVICE_GRAPHQL_ACTORS: 'edge,schema,auth' } });
});

afterAll(async () => {
  for (const actor of remoteActors) await actor.stop();
  await schemaOnly?.stop();
  await remote?.stop();
  await db?.drop();
});

describe('the remote-schema actor across processes', () => {
  it('is unavailable while no process runs it, and serves once one does', async () => {
    const refused = await schemaOnly.query(addRemote('people', remote.url));
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ code: 'unavailable', path: '$.args' });

    await startRemoteActor();
    expect((await schemaOnly.query(addRemote('people', remote.url))).json).toEqual({ message: 'success' });
    expect((await schemaOnly.graphql({ query: '{ hello(name: "x") }' }, admin)).json).toEqual({ data: { hello: 'hello x' } });
  });

  it('answers from a fresh instance that has built nothing yet, permissions and presets included', async () => {
    const sdl = 'type Query { users(filter: UserFilter): [User!]! } input UserFilter { role: Role tenant: String @preset(value: "x-service-tenant") } enum Role { ADMIN EDITOR VIEWER } type User { name: String! tenant: String }';
    expect((await schemaOnly.query({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'user', definition: { schema: sdl } } })).json).toEqual({ message: 'success' });
    const tenant = asRole('user', { 'x-service-tenant': 'globex' });
    const before = await schemaOnly.graphql({ query: '{ users(filter: {}) { name tenant } }' }, tenant);
    expect(before.json).toEqual({ data: { users: [{ name: 'Cleo', tenant: 'globex' }] } });

    // Every instance that served so far goes; the one that answers now has seen no message yet.
    for (const actor of remoteActors.splice(0)) await actor.stop();
    await startRemoteActor();
    expect((await schemaOnly.graphql({ query: '{ users(filter: {}) { name tenant } }' }, tenant)).json).toEqual(before.json);
    expect((await schemaOnly.graphql({ query: '{ hello }' }, asRole('user'))).json.errors[0].message).toBe("field 'hello' not found in type: 'query_root'");
    expect((await schemaOnly.query({ type: 'introspect_remote_schema', args: { name: 'people' } })).json.data.__schema.queryType.name).toBe('Query');
  });

  it('refuses a role SDL that does not fit the remote, judged by the remote-schema actor', async () => {
    const result = await schemaOnly.query({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'guest', definition: { schema: 'type Query { nothing: Int }' } } });
    expect(result.status).toBe(400);
    expect(result.json.code).toBe('validation-failed');
    expect(result.json.error).toContain('"nothing" does not exist');
  });

  it("serves a role its tables while no instance can give the role's remote view, and the remotes again once one can", async () => {
    const reader = asRole('reader');
    for (const operation of [
      { type: 'run_sql', args: { sql: 'create table note (id int primary key); insert into note values (1)' } },
      { type: 'track_table', args: { table: 'note' } },
      { type: 'create_select_permission', args: { table: 'note', role: 'reader', permission: { columns: '*', filter: {} } } },
      { type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'reader', definition: { schema: 'type Query { hello(name: String): String! }' } } },
    ]) expect((await schemaOnly.query(operation)).status).toBe(200);

    for (const actor of remoteActors.splice(0)) await actor.stop();
    expect((await schemaOnly.graphql({ query: '{ note { id } }' }, reader)).json).toEqual({ data: { note: [{ id: 1 }] } });
    expect((await schemaOnly.graphql({ query: '{ hello }' }, reader)).json.errors[0].extensions.code).toBe('validation-failed');

    await startRemoteActor();
    // The role is served its tables alone while the view is not given in time (a new instance
    // builds it cold, under the bus timeout), and asks again on each request until it is.
    const deadline = Date.now() + 15_000;
    let answer = await schemaOnly.graphql({ query: '{ hello }' }, reader);
    while (answer.json.data === undefined && Date.now() < deadline) {
      expect(answer.json.errors[0].extensions.code).toBe('validation-failed');
      await new Promise((resolve) => setTimeout(resolve, 200));
      answer = await schemaOnly.graphql({ query: '{ hello }' }, reader);
    }
    expect(answer.json).toEqual({ data: { hello: 'hello world' } });
  });
});
