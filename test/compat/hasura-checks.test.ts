import { describe, expect, it } from 'vitest';
import { graphqlFailure as failure, trackTables, useSqlFixture } from './sql-fixture.js';

/**
 * Issue 19, checks Hasura makes before any SQL, with its codes: a view Postgres cannot
 * insert into, update or delete from has no such mutation (Hasura builds none), and a
 * nested insert may not give a foreign key column that its parent row or an object
 * relationship inserted with it determines.
 */
const fixture = useSqlFixture(
  `
    create table author (id serial primary key, name text not null);
    create table article (id serial primary key, title text not null, author_id integer references author(id));
    insert into author (name) values ('Ada');
    create view author_names as select id, name from author;
    create view article_counts as select author_id, count(*) as articles from article group by author_id;
    create view author_initials as select left(name, 1) as initial, count(*) as authors from author group by left(name, 1);
    create function author_initials_insert() returns trigger language plpgsql as $$
      begin insert into author (name) values (new.initial); return new; end $$;
    create trigger author_initials_insert instead of insert on author_initials for each row execute function author_initials_insert();
  `,
  [
    ...trackTables('author', 'article', 'author_names', 'article_counts', 'author_initials'),
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  ],
);
const graphql = (body: unknown) => fixture().engine.graphql(body);

const rows = async (sql: string) => (await fixture().database.sql(sql)).rows;

describe('views', () => {
  it('offers the mutations of an auto-updatable view, which write through it', async () => {
    const answer = await graphql({ query: 'mutation { insert_author_names_one(object: {name: "Brian"}) { name } update_author_names(where: {name: {_eq: "Brian"}}, _set: {name: "Bri"}) { affected_rows } }' });
    expect(answer.json).toEqual({ data: { insert_author_names_one: { name: 'Brian' }, update_author_names: { affected_rows: 1 } } });
    const removed = await graphql({ query: 'mutation { delete_author_names(where: {name: {_eq: "Bri"}}) { affected_rows } }' });
    expect(removed.json).toEqual({ data: { delete_author_names: { affected_rows: 1 } } });
  });

  it('offers no insert, update or delete of a view Postgres cannot write, refusing them before any SQL', async () => {
    for (const field of ['insert_article_counts', 'insert_article_counts_one', 'update_article_counts', 'delete_article_counts']) {
      const answer = await graphql({ query: `mutation { ${field}(objects: []) { affected_rows } }` });
      expect(answer.json).toEqual(failure(`field '${field}' not found in type: 'mutation_root'`, `$.selectionSet.${field}`));
    }
    const read = await graphql({ query: '{ article_counts { author_id articles } }' });
    expect(read.json).toEqual({ data: { article_counts: [] } });
  });

  it('offers the insert of a view an INSTEAD OF trigger makes insertable, and only that', async () => {
    const answer = await graphql({ query: 'mutation { insert_author_initials(objects: [{initial: "G"}]) { affected_rows } }' });
    expect(answer.json).toEqual({ data: { insert_author_initials: { affected_rows: 1 } } });
    expect(await rows("select count(*)::int as n from author where name = 'G'")).toEqual([{ n: 1 }]);
    const update = await graphql({ query: 'mutation { update_author_initials(where: {}, _set: {initial: "X"}) { affected_rows } }' });
    expect(update.json).toEqual(failure("field 'update_author_initials' not found in type: 'mutation_root'", '$.selectionSet.update_author_initials'));
  });
});

describe('nested inserts', () => {
  it('refuses an object relationship beside the foreign key it determines, writing nothing', async () => {
    const answer = await graphql({ query: 'mutation { insert_article(objects: [{title: "t", author_id: 1, author: {data: {name: "Edsger"}}}]) { affected_rows } }' });
    expect(answer.json).toEqual(failure('cannot insert object relationship "author" as "author_id" column values are already determined', '$.selectionSet.insert_article.args.objects[0].author'));
    expect(await rows("select count(*)::int as n from author where name = 'Edsger'")).toEqual([{ n: 0 }]);
  });

  it('refuses a child row giving the foreign key its parent determines', async () => {
    const answer = await graphql({ query: 'mutation { insert_author_one(object: {name: "Ken", articles: {data: [{title: "a"}, {title: "b", author_id: 1}]}}) { id } }' });
    expect(answer.json).toEqual(failure('cannot insert "author_id" columns as their values are already being determined by parent insert', '$.selectionSet.insert_author_one.args.object[0].articles.data[1]'));
    expect(await rows("select count(*)::int as n from author where name = 'Ken'")).toEqual([{ n: 0 }]);
  });

  it('refuses an object relationship whose key a grand-parent row determines', async () => {
    const answer = await graphql({ query: 'mutation { insert_author(objects: [{name: "Ken", articles: {data: [{title: "a", author: {data: {name: "Rob"}}}]}}]) { affected_rows } }' });
    expect(answer.json).toEqual(failure('cannot insert object relationship "author" as "author_id" column values are already determined', '$.selectionSet.insert_author.args.objects[0].articles.data[0].author'));
  });

  it('still writes nested rows whose keys come from the relationships', async () => {
    const answer = await graphql({ query: 'mutation { insert_article_one(object: {title: "t", author: {data: {name: "Barbara", articles: {data: []}}}}) { title author { name } } }' });
    expect(answer.json).toEqual({ data: { insert_article_one: { title: 't', author: { name: 'Barbara' } } } });
  });
});
