import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { addRemote, admin, asRole, startRemoteWorld, type RemoteWorld } from './setup.js';

/**
 * A remote schema's customization applied to the served schema (compat-facts 7.1, 7.2):
 * types, fields and root fields renamed, root fields under a namespace, the forwarded
 * operation in the remote's names and the answer in the served ones.
 */
let world: RemoteWorld;
let geoServer: FixtureServer;

const PEOPLE_CUSTOMIZATION = {
  type_names: { prefix: 'P_', mapping: { Robot: 'Droid' } },
  field_names: [
    { parent_type: 'User', mapping: { email: 'mail', tenant: 'org' } },
    { parent_type: 'Query', prefix: 'p_' },
    { parent_type: 'Mutation', mapping: { createUser: 'addUser' } },
  ],
};

const USER_SDL = `
  schema { query: Query }
  type Query { users(filter: UserFilter, limit: Int): [User!]! }
  type User { id: ID! name: String! email: String }
  input UserFilter { role: Role tenant: String @preset(value: "x-service-tenant") }
  enum Role { ADMIN EDITOR VIEWER }
`;

beforeAll(async () => {
  world = await startRemoteWorld({ SERVICE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS: 'true' });
  geoServer = await startFixtureServer();
  await world.ok({
    type: 'bulk',
    args: [
      addRemote('people', world.remote.url, { customization: PEOPLE_CUSTOMIZATION }),
      addRemote('geo', geoServer.url, { customization: { root_fields_namespace: 'geo', type_names: { suffix: '_G' } } }),
      { type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'user', definition: { schema: USER_SDL } } },
    ],
  });
});

afterAll(async () => {
  await geoServer?.stop();
  await world?.stop();
});

const gql = (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = admin) =>
  world.engine.graphql({ query, ...(variables === undefined ? {} : { variables }) }, headers).then((result) => result.json);

describe('type_names and field_names', () => {
  it('serves renamed types, fields and root fields, and not the remote\'s names', async () => {
    const { data } = await gql(`{
      user: __type(name: "P_User") { fields { name } interfaces { name } }
      droid: __type(name: "Droid") { name }
      robot: __type(name: "P_Robot") { name }
      upstream: __type(name: "User") { name }
      filter: __type(name: "P_UserFilter") { inputFields { name } }
      int: __type(name: "Int") { name }
      __schema { queryType { fields { name } } mutationType { fields { name } } }
    }`);
    expect(data.user.fields.map((field: { name: string }) => field.name)).toEqual(['id', 'name', 'role', 'mail', 'org']);
    expect(data.user.interfaces.map((type: { name: string }) => type.name)).toEqual(['P_Node', 'P_Named']);
    expect(data.droid).toEqual({ name: 'Droid' });
    expect(data.robot).toBeNull();
    expect(data.upstream).toBeNull();
    expect(data.filter.inputFields.map((field: { name: string }) => field.name)).toEqual(['role', 'nameLike', 'tenant']);
    expect(data.int).toEqual({ name: 'Int' });
    const roots = data.__schema.queryType.fields.map((field: { name: string }) => field.name);
    expect(roots).toEqual(expect.arrayContaining(['p_hello', 'p_users', 'p_search', 'geo']));
    expect(roots).not.toContain('hello');
    expect(data.__schema.mutationType.fields.map((field: { name: string }) => field.name).sort()).toEqual(['addUser', 'geo']);
  });

  it('forwards the remote\'s names and answers in the served ones, __typename included', async () => {
    const query = `query Q($f: P_UserFilter, $role: P_Role) {
      p_users(filter: $f) { id mail who: org __typename }
      p_search(term: "b") { __typename ...D ... on P_User { mail } }
      n: p_node(id: "2") { ... on P_Named { name } }
      more: p_users(filter: { role: $role }) { name }
      ... on query_root { p_hello(name: "x") }
      __typename
    }
    fragment D on Droid { model }`;
    const json = await gql(query, { f: { role: 'ADMIN' }, role: 'VIEWER' });
    expect(json).toEqual({
      data: {
        p_users: [{ id: '1', mail: 'ada@example.com', who: 'acme', __typename: 'P_User' }],
        p_search: [{ __typename: 'P_User', mail: 'brian@example.com' }, { __typename: 'Droid', model: 'RX' }],
        n: { name: 'Brian' },
        more: [{ name: 'Cleo' }],
        p_hello: 'hello x',
        __typename: 'query_root',
      },
    });
    const sent = world.remote.requests.at(-1)!.body.query;
    expect(sent).toContain('query Q($f: UserFilter, $role: Role)');
    expect(sent).toContain('p_users: users(filter: $f)');
    expect(sent).toContain('mail: email');
    expect(sent).toContain('who: tenant');
    expect(sent).toContain('fragment D on Robot');
    expect(sent).toContain('... on Named');
    expect(sent).not.toMatch(/P_|Droid/);
  });

  it('renames a remote mutation', async () => {
    const json = await gql('mutation { addUser(user: { name: "Dan", role: VIEWER }) { name mail __typename } }');
    expect(json).toEqual({ data: { addUser: { name: 'Dan', mail: null, __typename: 'P_User' } } });
  });

  it('passes remote errors through with data null', async () => {
    const json = await gql('{ p_failing }');
    expect(json.data).toBeNull();
    expect(json.errors).toEqual([expect.objectContaining({ message: 'the failing field failed', path: ['p_failing'] })]);
  });

  it('applies a role\'s permission and presets, written in the remote\'s names, to the served names', async () => {
    const user = asRole('user', { 'x-service-tenant': 'globex' });
    const { data } = await gql('{ __schema { queryType { fields { name } } } __type(name: "P_UserFilter") { inputFields { name } } }', undefined, user);
    expect(data.__schema.queryType.fields.map((field: { name: string }) => field.name)).toEqual(['p_users']);
    expect(data.__type.inputFields.map((field: { name: string }) => field.name)).toEqual(['role']);
    expect(await gql('{ p_users(filter: {}) { name mail } }', undefined, user)).toEqual({ data: { p_users: [{ name: 'Cleo', mail: null }] } });
    const byVariable = 'query($f: P_UserFilter) { p_users(filter: $f) { name } }';
    expect(await gql(byVariable, { f: { role: 'VIEWER' } }, user)).toEqual({ data: { p_users: [{ name: 'Cleo' }] } });
    expect(world.remote.requests.at(-1)!.body.variables).toEqual({ f: { role: 'VIEWER', tenant: 'globex' } });
    expect((await gql(byVariable, { f: { tenant: 'acme' } }, user)).errors[0].extensions.code).toBe('validation-failed');
    expect((await gql('{ p_users { org } }', undefined, user)).errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('root_fields_namespace', () => {
  it('nests the remote\'s root fields under one field typed by the customized root type', async () => {
    const { data } = await gql('{ __type(name: "query_root") { fields { name type { kind ofType { name } } } } m: __type(name: "mutation_root") { fields { name } } }');
    const geo = data.__type.fields.find((field: { name: string }) => field.name === 'geo');
    expect(geo.type).toEqual({ kind: 'NON_NULL', ofType: { name: 'Query_G' } });
    expect(data.__type.fields.map((field: { name: string }) => field.name)).not.toContain('hello');
    expect(data.m.fields.map((field: { name: string }) => field.name)).toContain('geo');
  });

  it('answers namespaced fields, aliases, fragments and __typename', async () => {
    const query = `query {
      geo { hello users(limit: 1) { name __typename } }
      a: geo { h: hello(name: "a") }
      b: geo { ...G }
      __typename
    }
    fragment G on Query_G { __typename s: search(term: "rob") { ... on Robot_G { model } } }`;
    expect(await gql(query)).toEqual({
      data: {
        geo: { hello: 'hello world', users: [{ name: 'Ada', __typename: 'User_G' }] },
        a: { h: 'hello a' },
        b: { __typename: 'Query_G', s: [{ model: 'RX' }] },
        __typename: 'query_root',
      },
    });
    const sent = geoServer.requests.at(-1)!.body.query;
    expect(sent).not.toContain('geo');
    expect(sent).not.toContain('_G');
  });

  it('keeps @skip and @include on the namespace field', async () => {
    const query = 'query($no: Boolean!) { geo @skip(if: $no) { hello } }';
    expect(await gql(query, { no: true })).toEqual({ data: {} });
    expect(await gql(query, { no: false })).toEqual({ data: { geo: { hello: 'hello world' } } });
  });

  it('runs a namespaced mutation and maps error paths under the namespace', async () => {
    expect(await gql('mutation { geo { createUser(user: { name: "Eve", role: EDITOR }) { name role } } }')).toEqual({ data: { geo: { createUser: { name: 'Eve', role: 'EDITOR' } } } });
    const json = await gql('{ geo { failing } }');
    expect(json.data).toBeNull();
    expect(json.errors).toEqual([expect.objectContaining({ message: 'the failing field failed', path: ['geo', 'failing'] })]);
  });

  it('exports the customization as given', async () => {
    const exported = (await world.ok({ type: 'export_metadata', args: {} })).json;
    const people = exported.remote_schemas.find((entry: { name: string }) => entry.name === 'people');
    expect(people.definition.customization).toEqual(PEOPLE_CUSTOMIZATION);
  });
});

describe('customization errors', () => {
  it('refuses type name mappings that are not distinct', async () => {
    const result = await world.engine.query(addRemote('dup', geoServer.url, { customization: { root_fields_namespace: 'dup', type_names: { mapping: { User: 'Robot' } } } }));
    expect(result.status).toBe(400);
    expect(result.json.error).toBe('Inconsistent object: Type name mappings are not distinct; the following types appear more than once: "Robot"');
  });

  it('refuses customizing a reserved name', async () => {
    const result = await world.engine.query(addRemote('reserved', geoServer.url, { customization: { field_names: [{ parent_type: 'User', mapping: { __typename: 'kind' } }] } }));
    expect(result.json).toEqual({ path: '$.args.definition.customization', error: 'attempt to customize reserved field name "__typename"', code: 'invalid-params' });
  });

  it('refuses a customization that breaks an interface', async () => {
    const result = await world.engine.query(addRemote('broken', geoServer.url, { customization: { root_fields_namespace: 'broken', type_names: { prefix: 'B_' }, field_names: [{ parent_type: 'Robot', prefix: 'r_' }] } }));
    expect(result.status).toBe(400);
    expect(result.json.error).toMatch(/^Inconsistent object: the customization of remote schema "broken" makes its schema invalid: /);
  });

  it('refuses a customization of the wrong shape', async () => {
    const result = await world.engine.query(addRemote('shape', geoServer.url, { customization: { type_names: { prefix: 'has space' } } }));
    expect(result.json.code).toBe('invalid-params');
  });
});
