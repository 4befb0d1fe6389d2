import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, graphql, GraphQLError, type GraphQLSchema } from 'graphql';

/**
 * A real GraphQL server on loopback for the remote schema tests (graphql-js over
 * node:http): interfaces, a union, enums, input objects, a mutation, a field echoing
 * request headers, a field setting cookies, a slow field, a failing field and a
 * subscription root. `version(2)`
 * swaps in a schema with one more field, to see when the engine picks it up.
 */
const SDL = (extra: string) => `
  interface Node { id: ID! }
  interface Named { name: String! }
  enum Role { ADMIN EDITOR VIEWER }
  type User implements Node & Named { id: ID! name: String! role: Role! email: String tenant: String }
  type Robot implements Node & Named { id: ID! name: String! model: String }
  union SearchResult = User | Robot
  input UserFilter { role: Role nameLike: String tenant: String }
  input NewUser { name: String! role: Role! tenant: String }
  type Query {
    hello(name: String): String!
    user(id: ID!): User
    users(filter: UserFilter, limit: Int): [User!]!
    search(term: String!): [SearchResult!]!
    node(id: ID!): Node
    echoArgs(a: String, b: Int, filter: UserFilter): String!
    header(name: String!): String
    headerNames: [String!]!
    slow(ms: Int!): String!
    failing: String
    cookie(value: String!): String!
    ${extra}
  }
  type Mutation { createUser(user: NewUser!): User! }
  type Subscription { ticks: Int }
`;

const USERS = [
  { id: '1', name: 'Ada', role: 'ADMIN', email: 'ada@example.com', tenant: 'acme', __typename: 'User' },
  { id: '2', name: 'Brian', role: 'EDITOR', email: 'brian@example.com', tenant: 'acme', __typename: 'User' },
  { id: '3', name: 'Cleo', role: 'VIEWER', email: null, tenant: 'globex', __typename: 'User' },
];
const ROBOTS = [{ id: 'r1', name: 'Robbie', model: 'RX', __typename: 'Robot' }];

type Filter = { role?: string; nameLike?: string; tenant?: string } | null | undefined;

/** `cookies` collects the Set-Cookie values the `cookie` field asks the response to carry. */
function rootValue(headers: IncomingHttpHeaders, cookies: string[]) {
  return {
    hello: ({ name }: { name?: string }) => `hello ${name ?? 'world'}`,
    user: ({ id }: { id: string }) => USERS.find((user) => user.id === id) ?? null,
    users: ({ filter, limit }: { filter: Filter; limit?: number }) =>
      USERS.filter((user) => (filter?.role == null || user.role === filter.role) && (filter?.tenant == null || user.tenant === filter.tenant) && (filter?.nameLike == null || user.name.includes(filter.nameLike))).slice(0, limit ?? 100),
    search: ({ term }: { term: string }) => [...USERS, ...ROBOTS].filter((item) => item.name.toLowerCase().includes(term.toLowerCase())),
    node: ({ id }: { id: string }) => [...USERS, ...ROBOTS].find((item) => item.id === id) ?? null,
    echoArgs: (args: Record<string, unknown>) => JSON.stringify(args),
    header: ({ name }: { name: string }) => {
      const value = headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : (value ?? null);
    },
    headerNames: () => Object.keys(headers).sort(),
    slow: async ({ ms }: { ms: number }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return `slept ${ms}`;
    },
    failing: () => {
      throw new GraphQLError('the failing field failed', { extensions: { code: 'BOOM' } });
    },
    cookie: ({ value }: { value: string }) => {
      cookies.push(value);
      return value;
    },
    added: () => 'added in version 2',
    createUser: ({ user }: { user: { name: string; role: string; tenant?: string } }) => ({ id: '99', email: null, tenant: null, ...user, __typename: 'User' }),
  };
}

export interface FixtureServer {
  url: string;
  /** Every request the server received, newest last. */
  requests: { headers: IncomingHttpHeaders; body: { query: string; variables?: Record<string, unknown>; operationName?: string } }[];
  version(n: 1 | 2): void;
  stop(): Promise<void>;
  /** Starts again on the same port after stop(). */
  restart(): Promise<void>;
}

export async function startFixtureServer(port = 0): Promise<FixtureServer> {
  const schemas: Record<1 | 2, GraphQLSchema> = { 1: buildSchema(SDL('')), 2: buildSchema(SDL('added: String')) };
  let schema = schemas[1];
  const requests: FixtureServer['requests'] = [];
  const listen = (server: Server, at: number) => new Promise<number>((resolve) => server.listen(at, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  const make = () =>
    createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void (async () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FixtureServer['requests'][number]['body'];
          requests.push({ headers: request.headers, body });
          const cookies: string[] = [];
          const result = await graphql({ schema, source: body.query, variableValues: body.variables ?? null, operationName: body.operationName ?? null, rootValue: rootValue(request.headers, cookies) });
          response.writeHead(200, { 'content-type': 'application/json', ...(cookies.length > 0 ? { 'set-cookie': cookies } : {}) });
          response.end(JSON.stringify(result));
        })();
      });
    });
  let server = make();
  const boundPort = await listen(server, port);
  const close = () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  return {
    url: `http://127.0.0.1:${boundPort}/graphql`,
    requests,
    version: (n) => (schema = schemas[n]),
    stop: close,
    async restart() {
      server = make();
      await listen(server, boundPort);
    },
  };
}
