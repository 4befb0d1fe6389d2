import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRemote, admin, startRemoteWorld, type RemoteWorld } from './setup.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

/** The remote schema operations of /v1/query with their errors (compat-facts 7.1, 7.2). */
let world: RemoteWorld;
let other: FixtureServer;

beforeAll(async () => {
  world = await startRemoteWorld();
  other = await startFixtureServer();
  await world.ok({ type: 'bulk', args: [{ type: 'run_sql', args: { sql: 'create table hello (id integer primary key)' } }] });
});

afterAll(async () => {
  await other?.stop();
  await world?.stop();
});

const query = (body: unknown) => world.engine.query(body);

describe('add_remote_schema', () => {
  it('checks the URL and environment variables', async () => {
    expect((await query({ type: 'add_remote_schema', args: { name: 'r', definition: {} } })).json).toEqual({ path: '$.args.definition', error: 'both `url` and `url_from_env` can\'t be empty', code: 'invalid-params' });
    expect((await query({ type: 'add_remote_schema', args: { name: 'r', definition: { url: world.remote.url, url_from_env: 'X' } } })).json.error).toBe('both `url` and `url_from_env` can\'t be present');
    expect((await query({ type: 'add_remote_schema', args: { name: 'r', definition: { url_from_env: 'REMOTE_TEST_UNSET' } } })).json.error).toBe("environment variable 'REMOTE_TEST_UNSET' not set");
    expect((await query({ type: 'add_remote_schema', args: { name: 'r', definition: { url: 'not a url' } } })).json.error).toBe('not a valid URI: not a url');
    expect((await query(addRemote('r', world.remote.url, { headers: [{ name: 'X', value_from_env: 'REMOTE_TEST_UNSET' }] }))).json.code).toBe('invalid-params');
    expect((await query(addRemote('r', world.remote.url, { customization: { root_fields_namespace: '__geo' } }))).json.error).toBe('attempt to customize reserved field name "__geo"');
  });

  it('refuses a server that cannot be introspected', async () => {
    const result = await query(addRemote('down', 'http://127.0.0.1:9/graphql'));
    expect(result.status).toBe(400);
    expect(result.json.code).toBe('remote-schema-error');
  });

  it('adds from url_from_env and refuses the same name twice', async () => {
    process.env.REMOTE_TEST_URL = world.remote.url;
    expect((await query({ type: 'add_remote_schema', args: { name: 'people', definition: { url_from_env: 'REMOTE_TEST_URL', timeout_seconds: 30 }, comment: 'people' } })).json).toEqual({ message: 'success' });
    expect((await query(addRemote('people', world.remote.url))).json).toEqual({ path: '$.args', error: 'remote schema with name "people" already exists', code: 'already-exists' });
  });

  it('refuses root fields another source already serves', async () => {
    const clash = await query(addRemote('again', other.url));
    expect(clash.json.code).toBe('invalid-configuration');
    expect(clash.json.error).toMatch(/^Inconsistent object: (Duplicate remote field|Field cannot be overwritten by remote field) '/);
  });

  it('returns the raw introspection and answers unknown names', async () => {
    const introspected = await query({ type: 'introspect_remote_schema', args: { name: 'people' } });
    expect(introspected.json.data.__schema.queryType.name).toBe('Query');
    expect((await query({ type: 'introspect_remote_schema', args: { name: 'x' } })).json).toEqual({ path: '$.args', error: 'remote schema: "x" not found', code: 'not-exists' });
    expect((await query({ type: 'reload_remote_schema', args: { name: 'x' } })).json.error).toBe('remote schema with name "x" does not exist');
    expect((await query({ type: 'update_remote_schema', args: { name: 'x', definition: { url: other.url } } })).json.error).toBe('remote schema with name "x" doesn\'t exist');
    expect((await query({ type: 'remove_remote_schema', args: { name: 'x' } })).json).toEqual({ path: '$.args', error: 'no such remote schema', code: 'not-exists' });
  });

  it('exports the definition in Hasura\'s key order', async () => {
    await world.ok({ type: 'update_remote_schema', args: { name: 'people', definition: { forward_client_headers: true, headers: [{ name: 'X-A', value: '1' }], timeout_seconds: 30, url_from_env: 'REMOTE_TEST_URL' }, comment: 'people' } });
    const exported = (await world.ok({ type: 'export_metadata', args: {} })).json;
    expect(exported.remote_schemas).toEqual([{ name: 'people', definition: { url_from_env: 'REMOTE_TEST_URL', timeout_seconds: 30, headers: [{ name: 'X-A', value: '1' }], forward_client_headers: true }, comment: 'people' }]);
    expect(Object.keys(exported.remote_schemas[0].definition)).toEqual(['url_from_env', 'timeout_seconds', 'headers', 'forward_client_headers']);
  });

  it('removes a remote schema from the served schema', async () => {
    expect((await world.engine.graphql({ query: '{ hello }' }, admin)).json.data).toEqual({ hello: 'hello world' });
    await world.ok({ type: 'remove_remote_schema', args: { name: 'people' } });
    expect((await world.engine.graphql({ query: '{ hello }' }, admin)).json.errors[0].message).toBe("field 'hello' not found in type: 'query_root'");
    expect((await world.ok({ type: 'export_metadata', args: {} })).json.remote_schemas).toBeUndefined();
  });

  it('refuses tracking a table whose root field a remote serves', async () => {
    await world.ok(addRemote('people', world.remote.url));
    const result = await query({ type: 'track_table', args: { name: 'hello' } });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path: '$.args', error: 'node hello already exists in current graphql schema', code: 'remote-schema-conflicts' });
    const v2 = await query({ type: 'track_table', version: 2, args: { table: 'hello', configuration: {} } });
    expect(v2.json.code).toBe('remote-schema-conflicts');
    // Under other root field names the table does not clash.
    expect((await query({ type: 'track_table', version: 2, args: { table: 'hello', configuration: { custom_root_fields: { select: 'hellos', select_by_pk: 'hello_one', select_aggregate: 'hello_agg' } } } })).json).toEqual({ message: 'success' });
    // Customizing it back onto the remote's field clashes the same way.
    const customized = await query({ type: 'set_table_customization', args: { table: 'hello', configuration: { custom_root_fields: { select: 'hello' } } } });
    expect(customized.json).toEqual({ path: '$.args', error: 'node hello already exists in current graphql schema', code: 'remote-schema-conflicts' });
  });
});

describe('add_remote_schema_permissions without remote schema permissions enabled', () => {
  it('is refused', async () => {
    const result = await query({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'user', definition: { schema: 'type Query { hello: String! }' } } });
    expect(result.json).toEqual({ path: '$.args', error: 'remote schema permissions can only be added when remote schema permissions are enabled in the graphql-engine', code: 'constraint-violation' });
  });
});
