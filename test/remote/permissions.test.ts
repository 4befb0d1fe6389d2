import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRemote, admin, asRole, startRemoteWorld, type RemoteWorld } from './setup.js';

/** Remote schema permissions and @preset (interface 2.3, compat-facts 7.3), and the ways around them that must not work. */
let world: RemoteWorld;

const USER_SDL = `
  schema { query: Query }
  type Query {
    hello(name: String): String!
    users(filter: UserFilter, limit: Int): [User!]!
    echoArgs(a: String @preset(value: "x-service-user-id"), b: Int @preset(value: 5), filter: UserFilter): String!
  }
  type User { id: ID! name: String! }
  input UserFilter { role: Role nameLike: String tenant: String @preset(value: "x-service-tenant") }
  enum Role { ADMIN EDITOR }
`;

const STATIC_SDL = `
  type Query { echoArgs(a: String @preset(value: "x-service-user-id", static: true)): String! }
`;

beforeAll(async () => {
  world = await startRemoteWorld({ SERVICE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS: 'true' });
  await world.ok(addRemote('people', world.remote.url));
  await world.ok({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'user', definition: { schema: USER_SDL } } });
  await world.ok({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'literal', definition: { schema: STATIC_SDL }, comment: 'static preset' } });
});

afterAll(async () => {
  await world?.stop();
});

const user = asRole('user', { 'x-service-user-id': '42', 'x-service-tenant': 'acme' });
const gql = (query: string, headers: Record<string, string>, variables?: Record<string, unknown>) =>
  world.engine.graphql({ query, ...(variables === undefined ? {} : { variables }) }, headers).then((result) => result.json);

describe('add_remote_schema_permissions', () => {
  it('refuses a role schema that is not a subset, listing every problem', async () => {
    const sdl = `type Query { users(filter: UserFilter): [User!]! user: User }
      type User implements FullName { id: Int name: String! created_at: String }
      interface FullName { name: String! }
      input UserFilter { role: Role }
      enum Role { ADMIN }`;
    const result = await world.engine.query({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'bad', definition: { schema: sdl } } });
    expect(result.status).toBe(400);
    expect(result.json.code).toBe('validation-failed');
    expect(result.json.path).toBe('$.args');
    expect(result.json.error).toMatch(/^validation for the given role-based schema failed for the following reasons:\n • /);
    expect(result.json.error).toContain('field: "user" expects the following non nullable arguments to be present: "id"');
    expect(result.json.error).toContain('expected type of "id"("Object field") to be ID! but received Int');
    expect(result.json.error).toContain('field "created_at" does not exist in the "Object": "User"');
    expect(result.json.error).toContain('"Interface": "FullName" does not exist in the upstream remote schema');
    expect(result.json.error).toContain('custom interfaces are not supported. Object"User" implements the following custom interfaces: "FullName"');
  });

  it('says "because" when there is one problem, and checks preset values', async () => {
    const one = await world.engine.query({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'bad', definition: { schema: 'type Query { users(filter: UserFilter @preset(value: 2)): [User!]! } type User { id: ID! } input UserFilter { role: Role } enum Role { ADMIN }' } } });
    expect(one.json.error).toBe('validation for the given role-based schema failed because expected preset value "2" of type "UserFilter" to be an input object value');
    const field = await world.engine.query({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'bad', definition: { schema: 'type Query { users(filter: UserFilter @preset(value: {lte: 1})): [User!]! } type User { id: ID! } input UserFilter { role: Role } enum Role { ADMIN }' } } });
    expect(field.json.error).toBe('validation for the given role-based schema failed because "lte" does not exist in the input object "UserFilter"');
    const place = await world.engine.query({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'bad', definition: { schema: 'type Query { hello(name: String): String! @preset(value: "x") }' } } });
    expect(place.json.error).toBe('validation for the given role-based schema failed because Preset directives can be defined only on INPUT_FIELD_DEFINITION or ARGUMENT_DEFINITION');
  });

  it('answers duplicates and unknown names with Hasura\'s texts', async () => {
    const duplicate = await world.engine.query({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'user', definition: { schema: USER_SDL } } });
    expect(duplicate.json).toEqual({ path: '$.args', error: 'permissions for role: "user" for remote schema:"people" already exists', code: 'already-exists' });
    const unknown = await world.engine.query({ type: 'add_remote_schema_permissions', args: { remote_schema: 'nope', role: 'user', definition: { schema: USER_SDL } } });
    expect(unknown.json).toEqual({ path: '$.args', error: 'remote schema "nope" doesn\'t exist', code: 'not-exists' });
    const missing = await world.engine.query({ type: 'drop_remote_schema_permissions', args: { remote_schema: 'people', role: 'ghost' } });
    expect(missing.json).toEqual({ path: '$.args', error: 'permissions for role: "ghost" for remote schema:"people" doesn\'t exist', code: 'not-exists' });
  });
});

describe('a role with a remote schema permission', () => {
  it('sees only its SDL, without preset arguments, in introspection', async () => {
    const { data } = await gql('{ __schema { queryType { fields { name args { name } } } mutationType { name } } __type(name: "UserFilter") { inputFields { name } } }', user);
    const fields = Object.fromEntries(data.__schema.queryType.fields.map((field: { name: string; args: { name: string }[] }) => [field.name, field.args.map((arg) => arg.name)]));
    expect(fields).toEqual({ hello: ['name'], users: ['filter', 'limit'], echoArgs: ['filter'] });
    expect(data.__schema.mutationType).toBeNull();
    expect(data.__type.inputFields.map((field: { name: string }) => field.name)).toEqual(['role', 'nameLike']);
    expect((await gql('{ __type(name: "Robot") { name } }', user)).data.__type).toBeNull();
  });

  it('gets presets from its session and statics injected', async () => {
    const { data } = await gql('{ echoArgs }', user);
    expect(JSON.parse(data.echoArgs)).toEqual({ a: '42', b: 5 });
    expect(JSON.parse((await gql('{ echoArgs }', asRole('literal', { 'x-service-user-id': '42' }))).data.echoArgs)).toEqual({ a: 'x-service-user-id' });
  });

  it('gets input field presets in literals and in variables', async () => {
    expect((await gql('{ users(filter: { role: EDITOR }) { name } }', user)).data.users).toEqual([{ name: 'Brian' }]);
    expect(JSON.parse((await gql('{ echoArgs(filter: {}) }', user)).data.echoArgs)).toEqual({ a: '42', b: 5, filter: { tenant: 'acme' } });
    const viaVariable = await gql('query ($f: UserFilter) { echoArgs(filter: $f) }', user, { f: { nameLike: 'x' } });
    expect(JSON.parse(viaVariable.data.echoArgs)).toEqual({ a: '42', b: 5, filter: { nameLike: 'x', tenant: 'acme' } });
  });

  it('fails when the preset session variable is missing, rather than sending null', async () => {
    const json = await gql('{ echoArgs }', asRole('user', { 'x-service-tenant': 'acme' }));
    expect(json).toEqual({ errors: [{ message: 'missing session variable: "x-service-user-id"', extensions: { path: '$', code: 'not-found' } }] });
  });
});

describe('no way around the role schema', () => {
  it('cannot send a preset argument', async () => {
    const json = await gql('{ echoArgs(a: "1") }', user);
    expect(json.errors[0].extensions.code).toBe('validation-failed');
    expect(json.errors[0].message).toBe("'echoArgs' has no argument named 'a'");
  });

  it('cannot send a preset input field, in a literal or in a variable object', async () => {
    expect((await gql('{ users(filter: { tenant: "globex" }) { name } }', user)).errors[0].extensions.code).toBe('validation-failed');
    const variable = await gql('query ($f: UserFilter) { users(filter: $f) { name } }', user, { f: { tenant: 'globex' } });
    expect(variable.errors[0].extensions.code).toBe('validation-failed');
    expect(world.remote.requests.some((request) => JSON.stringify(request.body.variables ?? {}).includes('globex'))).toBe(false);
  });

  it('cannot reach a hidden field by alias, fragment, or a type outside its SDL', async () => {
    for (const query of ['{ e: users { email } }', '{ users { ...F } } fragment F on User { email }', '{ users { ... on User { email } } }', '{ search(term: "a") { __typename } }', '{ x: node(id: "1") { id } }']) {
      const json = await gql(query, user);
      expect(json.errors?.[0]?.extensions.code, query).toBe('validation-failed');
    }
  });

  it('cannot use a root operation left out of its schema', async () => {
    const json = await gql('mutation { createUser(user: { name: "x", role: ADMIN }) { id } }', user);
    expect(json.errors[0].message).toBe('no mutations exist');
  });

  it('leaves roles without a permission without the remote schema', async () => {
    const json = await gql('{ hello }', asRole('other'));
    expect(json).toEqual({ errors: [{ message: "field 'hello' not found in type: 'query_root'", extensions: { path: '$.selectionSet.hello', code: 'validation-failed' } }] });
    const names = (await gql('{ __schema { types { name } } }', asRole('other'))).data.__schema.types.map((type: { name: string }) => type.name);
    expect(names).not.toContain('User');
  });

  it('leaves admin unrestricted', async () => {
    expect((await gql('{ users(filter: { tenant: "globex" }) { email } }', admin)).data.users).toEqual([{ email: null }]);
  });

  it('is carried by export and replace metadata', async () => {
    const exported = (await world.ok({ type: 'export_metadata', args: {} })).json;
    expect(exported.remote_schemas[0].permissions.map((permission: { role: string }) => permission.role)).toEqual(['literal', 'user']);
    expect(exported.remote_schemas[0].permissions[0]).toEqual({ role: 'literal', definition: { schema: STATIC_SDL }, comment: 'static preset' });
    await world.ok({ type: 'drop_remote_schema_permissions', args: { remote_schema: 'people', role: 'user' } });
    expect((await gql('{ hello }', user)).errors[0].extensions.code).toBe('validation-failed');
    await world.ok({ type: 'replace_metadata', args: exported });
    expect((await gql('{ hello }', user)).data).toEqual({ hello: 'hello world' });
    expect((await world.ok({ type: 'export_metadata', args: {} })).json).toEqual(exported);
  });
});
