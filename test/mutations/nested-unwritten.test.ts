import { describe, expect, it } from 'vitest';
import { useMutationFixture } from './fixture.js';

/**
 * A nested insert whose related row is not written (its on_conflict does nothing) fails
 * the whole request, as Hasura's insertObjRel / withArrRels do, and writes nothing.
 * Starting rows: authors 1 (Ada, ada@example.com) and 2 (Brian), articles 1 and 2.
 */
const fixture = useMutationFixture();

const counts = async () => (await fixture().rows('select (select count(*) from author)::int as authors, (select count(*) from article)::int as articles'))[0];
const ignore = 'on_conflict: {constraint: author_email_key, update_columns: []}';

describe('a nested insert whose related row is not written', () => {
  it('fails when an object relationship\'s upsert does nothing, and writes nothing', async () => {
    const result = await fixture().gql(`mutation {
      insert_article(objects: [
        {title: "Kept?", author: {data: {name: "Cleo", email: "cleo@example.com"}, ${ignore}}},
        {title: "Orphan", author: {data: {name: "Ada again", email: "ada@example.com"}, ${ignore}}}
      ]) { affected_rows }
    }`);
    expect(result.json).toEqual({
      errors: [{
        message: 'cannot proceed to insert object relation "author" since insert to table "author" affects zero rows',
        extensions: { path: '$.selectionSet.insert_article.args.objects[1].author', code: 'not-supported' },
      }],
    });
    expect(await counts()).toEqual({ authors: 2, articles: 2 });
  });

  it('fails when the parent of an array relationship\'s rows is not written', async () => {
    const result = await fixture().gql(`mutation {
      insert_author_one(object: {name: "Ada again", email: "ada@example.com", articles: {data: [{title: "Lost"}]}}, ${ignore}) { id }
    }`);
    expect(result.json).toEqual({
      errors: [{
        message: 'cannot proceed to insert array relations since insert to table "author" affects zero rows',
        extensions: { path: '$.selectionSet.insert_author_one.args.object[0]', code: 'not-supported' },
      }],
    });
    expect(await counts()).toEqual({ authors: 2, articles: 2 });
  });

  it('reports the first failure in the order Hasura inserts, with the nested path', async () => {
    const result = await fixture().gql(`mutation {
      insert_author_one(object: {name: "Dan", articles: {data: [{title: "One"}, {title: "Two", author: {data: {name: "x", email: "ada@example.com"}, ${ignore}}}]}}) { id }
    }`);
    // Two articles through `articles`; the second names its own author, whose key its parent
    // already determines: Hasura refuses that before inserting anything (issue 19).
    expect(result.json.errors[0].extensions).toEqual({ path: '$.selectionSet.insert_author_one.args.object[0].articles.data[1].author', code: 'validation-failed' });
    expect(await counts()).toEqual({ authors: 2, articles: 2 });
  });

  it('still succeeds when the upsert updates the related row', async () => {
    const result = await fixture().gql(`mutation {
      insert_article_one(object: {title: "Third", author: {data: {name: "Ada L.", email: "ada@example.com"}, on_conflict: {constraint: author_email_key, update_columns: [name]}}}) { title author { id name } }
    }`);
    expect(result.json).toEqual({ data: { insert_article_one: { title: 'Third', author: { id: 1, name: 'Ada L.' } } } });
    expect(await counts()).toEqual({ authors: 2, articles: 3 });
  });
});
