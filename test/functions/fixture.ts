import { expect } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

/**
 * A blog database with functions of every kind the rules of issue 6 tell apart, and
 * an engine over it with `author`, `article`, `note` and the view `author_view` tracked.
 */
export const SECRET = 'functions-secret';
export const admin = { 'x-service-admin-secret': SECRET };
export const asUser = (id: number) => ({ ...admin, 'x-service-role': 'user', 'x-service-user-id': String(id) });

export const SCHEMA_SQL = `
  create table author (id integer primary key, name text not null, email text not null);
  create table article (id integer primary key, author_id integer not null references author(id), title text not null,
                        is_published boolean not null default false, rating numeric);
  create table note (id serial primary key, author_id integer, body text not null);
  create table untracked (id integer primary key);
  create view author_view as select id, name from author;
  create type pair as (a integer, b integer);
  insert into author values (1, 'Ada', 'ada@example.com'), (2, 'Brian', 'brian@example.com'), (3, 'Cleo', 'cleo@example.com');
  insert into article values
    (10, 1, 'Engines', true, 4.5), (11, 1, 'Engine notes', false, 3.0),
    (12, 2, 'Pipes', true, 4.0), (13, 3, 'Engine draft', false, null), (14, 2, 'Engine room', true, 2.0);

  create function search_articles(search text, min_rating numeric default 0) returns setof article
    language sql stable as $$ select * from article where title ilike '%' || search || '%' and coalesce(rating, 0) >= min_rating $$;
  create function my_articles(service_session json) returns setof article
    language sql stable as $$ select * from article where author_id = (service_session ->> 'x-service-user-id')::int $$;
  create function whoami(service_session json) returns setof author
    language sql stable as $$ select id, coalesce(service_session ->> 'x-service-user-id', '?') || '/' || (service_session ->> 'x-service-role'), '' from author where id = 1 $$;
  create function add_note(body text, service_session json) returns setof note
    language sql volatile as $$ insert into note (author_id, body) values ((service_session ->> 'x-service-user-id')::int, body) returning * $$;
  create function add_note_as_setting(body text) returns setof note
    language sql volatile as $$ insert into note (author_id, body) values ((current_setting('service.user')::json ->> 'x-service-user-id')::int, body) returning * $$;
  create function paged_articles(skip integer default 0, take integer default 100) returns setof article
    language sql stable as $$ select * from article order by id offset skip limit take $$;
  create function unnamed_defaults(integer default 0, integer default 100) returns setof article
    language sql stable as $$ select * from article order by id offset $1 limit $2 $$;
  create function top_article() returns article
    language sql stable as $$ select * from article order by rating desc nulls last limit 1 $$;

  create function author_label(author_row author, prefix text default '') returns text
    language sql stable as $$ select prefix || author_row.name || ' <' || author_row.email || '>' $$;
  create function author_name_length(author) returns integer language sql immutable as $$ select length($1.name) $$;
  create function author_articles_rated(a author, min numeric) returns setof article
    language sql stable as $$ select * from article where author_id = a.id and coalesce(rating, 0) >= min $$;
  create function author_greeting(a author, service_session json) returns text
    language sql stable as $$ select 'hello ' || a.name || ' from ' || (service_session ->> 'x-service-user-id') $$;
  create function author_view_shout(v author_view) returns text language sql immutable as $$ select upper(v.name) $$;
  create function author_view_articles(v author_view, title_like text) returns setof article
    language sql stable as $$ select * from article where author_id = v.id and title ilike title_like $$;

  create function volatile_label(a author) returns text language sql volatile as $$ select a.name $$;
  create function hello_world() returns text language sql stable as $$ select 'hello' $$;
  create function first_not_row(t text, a author) returns text language sql stable as $$ select t $$;
  create function returns_pairs() returns setof pair language sql stable as $$ select 1, 2 $$;
  create function returns_int() returns integer language sql stable as $$ select 1 $$;
  create function overloaded(x integer) returns setof article language sql stable as $$ select * from article $$;
  create function overloaded(x text) returns setof article language sql stable as $$ select * from article $$;
  create function with_out(in x integer, out y article) returns setof article language sql stable as $$ select * from article $$;
  create function with_variadic(variadic xs integer[]) returns setof article language sql stable as $$ select * from article $$;
  create function stable_articles() returns setof article language sql stable as $$ select * from article $$;
  create function session_text(s text) returns setof article language sql stable as $$ select * from article $$;
  create function untracked_rows() returns setof untracked language sql stable as $$ select * from untracked $$;
  create function author(x integer) returns setof author language sql stable as $$ select * from author $$;
  create function "bad name"() returns setof article language sql stable as $$ select * from article $$;
`;

export interface FunctionsFixture {
  db: TestDatabase;
  engine: TestEngine;
  query(body: unknown): Promise<{ status: number; json: any }>;
  gql(query: string, headers?: Record<string, string>, variables?: Record<string, unknown>): Promise<any>;
  stop(): Promise<void>;
}

/** `env`: further SERVICE_GRAPHQL_* settings of the engine. */
export async function startFunctionsFixture(env: Record<string, string> = {}): Promise<FunctionsFixture> {
  const db = await createTestDatabase();
  await db.sql(SCHEMA_SQL);
  const engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, ...env } });
  const query = (body: unknown) => engine.query(body);
  const setup = await query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { name: 'author' } },
      { type: 'track_table', args: { name: 'article' } },
      { type: 'track_table', args: { name: 'note' } },
      { type: 'track_table', args: { name: 'author_view' } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
      { type: 'create_select_permission', args: { table: 'author_view', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
      { type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { columns: ['id', 'author_id', 'body'], filter: { author_id: { _eq: 'X-Service-User-Id' } } } } },
      {
        type: 'create_select_permission',
        args: {
          table: 'article',
          role: 'user',
          permission: { columns: ['id', 'title', 'author_id', 'rating'], filter: { _or: [{ is_published: { _eq: true } }, { author_id: { _eq: 'X-Service-User-Id' } }] } },
        },
      },
    ],
  });
  expect(setup.json).toEqual(Array(8).fill({ message: 'success' }));
  return {
    db,
    engine,
    query,
    gql: async (text, headers = admin, variables) => (await engine.graphql({ query: text, ...(variables === undefined ? {} : { variables }) }, headers)).json,
    async stop() {
      await engine.stop();
      await db.drop();
    },
  };
}

/** The body of a refused `/v1/query` request, checked for status, code and (part of) the message. */
export function expectRefusal(result: { status: number; json: any }, code: string, message: string): void {
  expect(result.status).toBe(400);
  expect(result.json.code).toBe(code);
  expect(result.json.error).toContain(message);
}
