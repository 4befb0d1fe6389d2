import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRemote, asRole, startRemoteWorld, type RemoteWorld } from '../remote/setup.js';

/**
 * Remote schema permissions of inherited roles (Hasura's note on roles inheritance): an
 * inherited role without its own permission takes its parents' when they are the same,
 * and has none when they differ.
 */
let world: RemoteWorld;

const HELLO = 'type Query { hello(name: String): String! }';
const USERS = 'type Query { users(limit: Int): [User!]! } type User { id: ID! name: String! }';
const gql = async (role: string, query: string) => (await world.engine.graphql({ query }, asRole(role))).json;

beforeAll(async () => {
  world = await startRemoteWorld({ SERVICE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS: 'true' });
  await world.ok(addRemote('people', world.remote.url));
  for (const [role, schema] of [['greeter', HELLO], ['greeter_too', HELLO], ['lister', USERS]] as const) {
    await world.ok({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role, definition: { schema } } });
  }
  await world.ok({ type: 'add_inherited_role', args: { role_name: 'greeters', role_set: ['greeter', 'greeter_too'] } });
  await world.ok({ type: 'add_inherited_role', args: { role_name: 'mixed', role_set: ['greeter', 'lister'] } });
});

afterAll(async () => {
  await world?.stop();
});

describe('remote schema permissions of an inherited role', () => {
  it('are its parents\' when they agree', async () => {
    expect(await gql('greeters', '{ hello(name: "x") }')).toEqual({ data: { hello: 'hello x' } });
    expect((await gql('greeters', '{ users { id } }')).errors[0].extensions.code).toBe('validation-failed');
  });

  it('are none when they differ, unless it has its own', async () => {
    expect((await gql('mixed', '{ hello }')).errors[0].extensions.code).toBe('validation-failed');
    await world.ok({ type: 'add_remote_schema_permissions', args: { remote_schema: 'people', role: 'mixed', definition: { schema: HELLO } } });
    expect(await gql('mixed', '{ hello }')).toEqual({ data: { hello: 'hello world' } });
  });
});
