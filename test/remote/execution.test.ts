import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRemote, admin, asRole, startRemoteWorld, type RemoteWorld } from './setup.js';

/** Remote fields served beside table fields through /v1/graphql (interface 4.3, compat-facts 7.2). */
let world: RemoteWorld;

beforeAll(async () => {
  // Remote definitions read the process environment, as in production.
  process.env.REMOTE_API_KEY = 'k-123';
  world = await startRemoteWorld();
  await world.ok({
    type: 'bulk',
    args: [
      { type: 'run_sql', args: { sql: 'create table author (id integer primary key, name text not null); insert into author values (1, \'Ada\');' } },
      { type: 'track_table', args: { name: 'author' } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
      addRemote('people', world.remote.url, {
        headers: [{ name: 'X-Api-Key', value_from_env: 'REMOTE_API_KEY' }, { name: 'X-From', value: 'engine' }],
        forward_client_headers: true,
        timeout_seconds: 1,
      }),
    ],
  });
});

afterAll(async () => {
  await world?.stop();
});

const gql = (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = admin) => world.engine.graphql({ query, ...(variables === undefined ? {} : { variables }) }, headers);

describe('remote fields beside table fields', () => {
  it('serves a remote query field and a table field from one endpoint', async () => {
    expect((await gql('{ hello(name: "you") }')).json).toEqual({ data: { hello: 'hello you' } });
    expect((await gql('{ author { name } }')).json).toEqual({ data: { author: [{ name: 'Ada' }] } });
  });

  it('lists remote and table root fields in one query_root', async () => {
    const { json } = await gql('{ __schema { queryType { name fields { name } } mutationType { name } subscriptionType { name fields { name } } } }');
    const names = json.data.__schema.queryType.fields.map((field: { name: string }) => field.name);
    expect(json.data.__schema.queryType.name).toBe('query_root');
    expect(names).toEqual(expect.arrayContaining(['author', 'author_by_pk', 'hello', 'users', 'search']));
    expect(json.data.__schema.mutationType).toEqual({ name: 'mutation_root' });
    // Subscriptions are the tables' only: the remote's subscription root is not served (interface 4.3 rule 4).
    expect(json.data.__schema.subscriptionType.name).toBe('subscription_root');
    expect(json.data.__schema.subscriptionType.fields.map((field: { name: string }) => field.name)).not.toContain('ticks');
  });

  it('refuses table and remote fields in one operation', async () => {
    const { json } = await gql('{ author { name } hello }');
    expect(json).toEqual({ errors: [{ message: 'cannot mix top level fields from two different graphql servers', extensions: { path: '$', code: 'not-supported' } }] });
  });

  it('refuses a subscription to a remote field', async () => {
    const { json } = await gql('subscription { ticks }');
    expect(json.errors[0].extensions.code).toBe('not-supported');
    expect(json.errors[0].message).toBe('subscription to remote server is not supported');
  });

  it('forwards variables, aliases, fragments, interfaces, unions and enums', async () => {
    const query = `
      query Q($f: UserFilter, $term: String!) {
        admins: users(filter: $f) { ...U }
        search(term: $term) { __typename ... on User { name role } ... on Robot { model } }
        node(id: "r1") { id ... on Named { name } }
        ... on query_root { h: hello }
        __typename
      }
      fragment U on User { id name role }`;
    const { json } = await gql(query, { f: { role: 'ADMIN' }, term: 'b' });
    expect(json).toEqual({
      data: {
        admins: [{ id: '1', name: 'Ada', role: 'ADMIN' }],
        search: [{ __typename: 'User', name: 'Brian', role: 'EDITOR' }, { __typename: 'Robot', model: 'RX' }],
        node: { id: 'r1', name: 'Robbie' },
        h: 'hello world',
        __typename: 'query_root',
      },
    });
    const sent = world.remote.requests.at(-1)!.body;
    expect(sent.query).toContain('... on Query');
    expect(sent.query).not.toContain('__typename\n}');
  });

  it('runs a remote mutation with an input object', async () => {
    const { json } = await gql('mutation { createUser(user: { name: "Dan", role: VIEWER }) { id name role } }');
    expect(json).toEqual({ data: { createUser: { id: '99', name: 'Dan', role: 'VIEWER' } } });
  });

  it('passes remote errors through with data null', async () => {
    const { json } = await gql('{ failing hello }');
    expect(json.data).toBeNull();
    expect(json.errors).toEqual([expect.objectContaining({ message: 'the failing field failed', path: ['failing'] })]);
  });

  it('passes the remote\'s Set-Cookie headers back to the client', async () => {
    const result = await gql('{ a: cookie(value: "session=abc; Path=/; HttpOnly") b: cookie(value: "theme=dark") }');
    expect(result.json.data).toEqual({ a: 'session=abc; Path=/; HttpOnly', b: 'theme=dark' });
    expect(result.headers.getSetCookie()).toEqual(['session=abc; Path=/; HttpOnly', 'theme=dark']);
    expect((await gql('{ hello }')).headers.getSetCookie()).toEqual([]);
  });

  it('enforces timeout_seconds', async () => {
    const { json } = await gql('{ slow(ms: 1500) }');
    expect(json.errors[0].extensions.code).toBe('remote-schema-error');
    expect(json.errors[0].message).toContain('did not answer within 1 seconds');
    expect((await gql('{ slow(ms: 10) }')).json).toEqual({ data: { slow: 'slept 10' } });
  });
});

describe('headers sent to the remote server', () => {
  it('sends configured headers, from the environment too', async () => {
    const { json } = await gql('{ k: header(name: "x-api-key") f: header(name: "x-from") }');
    expect(json.data).toEqual({ k: 'k-123', f: 'engine' });
  });

  it('forwards client headers except hop-by-hop ones and the admin secret', async () => {
    const { json } = await gql('{ headerNames c: header(name: "x-custom") }', undefined, { ...admin, 'x-custom': 'yes', connection: 'keep-alive', 'x-api-key': 'from-client' });
    expect(json.data.c).toBe('yes');
    expect(json.data.headerNames).not.toContain('x-service-admin-secret');
    expect(json.data.headerNames).not.toContain('transfer-encoding');
    // Configured headers win over the client's.
    expect((await gql('{ header(name: "x-api-key") }', undefined, { ...admin, 'x-api-key': 'from-client' })).json.data.header).toBe('k-123');
  });

  it('sends the session variables of a non-admin role as x-service-* headers', async () => {
    const { json } = await gql('{ r: header(name: "x-service-role") u: header(name: "x-service-user-id") s: header(name: "x-service-admin-secret") }', undefined, asRole('user', { 'x-service-user-id': '7' }));
    expect(json.data).toEqual({ r: 'user', u: '7', s: null });
  });

  it('sends no session variables for admin', async () => {
    const { json } = await gql('{ r: header(name: "x-service-role") }');
    expect(json.data.r).toBeNull();
  });
});
