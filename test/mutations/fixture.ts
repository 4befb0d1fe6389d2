import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type HttpResult, type TestEngine } from '../harness/engine.js';

/**
 * A database and an engine for the mutation suites, over HTTP. Tables:
 * - author: `email` unique, `rating` checked 0..10; owned through `owner_id`.
 * - article: belongs to an author (`author_id` not null, foreign key).
 * - audit: a trigger on article writes the `service.user` setting of each write here.
 * Role `user` (X-Service-User-Id) may:
 * - author: read all but `updated_by`; insert name/email/rating/meta/born with `owner_id` preset to
 *   the user and rating <= 5 checked; update name/rating/meta of own rows (rating <= 5 checked,
 *   `updated_by` preset); delete own rows.
 * - article: read and insert (author_id, title, is_published) for own authors only (a check
 *   through the `author` relationship); update title/is_published of own articles; no delete.
 */
export const SECRET = 'mutation-secret';
export const admin = { 'x-service-admin-secret': SECRET };
export const asUser = (id: string) => ({ ...admin, 'x-service-role': 'user', 'x-service-user-id': id });

export interface MutationFixture {
  db: TestDatabase;
  engine: TestEngine;
  gql(query: string, headers?: Record<string, string>, variables?: Record<string, unknown>): Promise<HttpResult>;
  rows(sql: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

const SCHEMA = `
  create table author (
    id serial primary key, name text not null, email text unique, owner_id text, updated_by text,
    rating int check (rating between 0 and 10), meta jsonb, born date
  );
  create table article (
    id serial primary key, author_id int not null references author(id), title text not null,
    is_published boolean not null default false, views int not null default 0
  );
  create table audit (id serial primary key, op text not null, who jsonb);
  create function audit_article() returns trigger language plpgsql as $$
    begin insert into audit (op, who) values (tg_op, current_setting('service.user', true)::jsonb); return null; end $$;
  create trigger article_audit after insert or update or delete on article for each row execute function audit_article();
`;

const userRole = 'user';
const own = { owner_id: { _eq: 'X-Service-User-Id' } };

const METADATA = [
  { type: 'track_table', args: { name: 'author' } },
  { type: 'track_table', args: { name: 'article' } },
  { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
  { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  { type: 'create_select_permission', args: { table: 'author', role: userRole, permission: { columns: ['id', 'name', 'email', 'owner_id', 'rating', 'meta', 'born'], filter: {} } } },
  {
    type: 'create_insert_permission',
    args: { table: 'author', role: userRole, permission: { check: { rating: { _lte: 5 } }, set: { owner_id: 'X-Service-User-Id' }, columns: ['name', 'email', 'rating', 'meta', 'born'] } },
  },
  {
    type: 'create_update_permission',
    args: { table: 'author', role: userRole, permission: { columns: ['name', 'rating', 'meta'], filter: own, check: { rating: { _lte: 5 } }, set: { updated_by: 'X-Service-User-Id' } } },
  },
  { type: 'create_delete_permission', args: { table: 'author', role: userRole, permission: { filter: own } } },
  { type: 'create_select_permission', args: { table: 'article', role: userRole, permission: { columns: ['id', 'author_id', 'title', 'is_published', 'views'], filter: { author: own } } } },
  { type: 'create_insert_permission', args: { table: 'article', role: userRole, permission: { check: { author: own }, columns: ['author_id', 'title', 'is_published'] } } },
  { type: 'create_update_permission', args: { table: 'article', role: userRole, permission: { columns: ['title', 'is_published'], filter: { author: own } } } },
];

export async function setupMutationFixture(): Promise<MutationFixture> {
  const db = await createTestDatabase();
  await db.sql(SCHEMA);
  const engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET } });
  const setup = await engine.query({ type: 'bulk', args: METADATA });
  if (setup.status !== 200) throw new Error(`metadata set-up failed: ${setup.text}`);
  return {
    db,
    engine,
    gql: (query, headers = admin, variables) => engine.graphql({ query, ...(variables === undefined ? {} : { variables }) }, headers),
    rows: async (sql, values) => (await db.sql(sql, values)).rows as Record<string, unknown>[],
    async close() {
      await engine.stop();
      await db.drop();
    },
  };
}

/** Empties the tables and writes the starting rows: authors 1 (owned by user 1) and 2 (user 2), each with one article. */
export async function resetRows(fixture: MutationFixture): Promise<void> {
  await fixture.db.sql(`
    truncate audit, article, author restart identity cascade;
    insert into author (name, email, owner_id, rating, meta) values
      ('Ada', 'ada@example.com', '1', 3, '{"lang": "en", "tags": ["a", "b"]}'),
      ('Brian', 'brian@example.com', '2', 4, null);
    insert into article (author_id, title, is_published) values (1, 'Engines', true), (2, 'Pipes', false);
    truncate audit;
  `);
}

/**
 * Registers the hooks every mutation suite needs: one fixture for the file, its rows
 * reset before each test. Returns the fixture (valid once `beforeAll` has run).
 */
export function useMutationFixture(): () => MutationFixture {
  let fixture: MutationFixture | undefined;
  beforeAll(async () => {
    fixture = await setupMutationFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });
  beforeEach(async () => {
    await resetRows(fixture!);
  });
  return () => fixture!;
}
