import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkConsistency } from '../../actors/schema/consistency/check.js';
import { buildSourceModel } from '../../actors/schema/models/table-model.js';
import { selectPermissionProblem } from '../../actors/schema/consistency/select-permission-check.js';
import { introspectCatalog, relationKey } from '../../src/pg/catalog.js';
import { goldenMetadata, setupGraphqlFixture, type GraphqlFixture } from './fixture.js';

/** Select permissions left broken by a schema change are inconsistent objects; the rest is still served. */
let fixture: GraphqlFixture;
beforeAll(async () => {
  fixture = await setupGraphqlFixture();
});
afterAll(async () => {
  await fixture.close();
});

describe('select permission consistency', () => {
  it('takes out permissions naming a dropped column in their columns or filter, through relationships too', async () => {
    await fixture.database.sql('alter table author drop column birth_date; alter table article drop column is_published');
    const catalog = await introspectCatalog(fixture.database.pool);
    const report = checkConsistency(goldenMetadata(), catalog);
    expect(report.inconsistencies.map((item) => [item.type, (item.definition as { role: string }).role, item.reason])).toEqual([
      ['select_permission', 'user', 'in table "author": in permission for role "user": no such column exists: "birth_date"'],
      ['select_permission', 'anonymous', 'in table "author": in permission for role "anonymous": no such column or relationship exists: "is_published"'],
      ['select_permission', 'user', 'in table "article": in permission for role "user": no such column exists: "is_published"'],
      ['select_permission', 'anonymous', 'in table "article": in permission for role "anonymous": no such column or relationship exists: "is_published"'],
      ['select_permission', 'user', 'in table "comment": in permission for role "user": no such column or relationship exists: "is_published"'],
    ]);
    const tables = report.consistent.sources[0]!.tables;
    expect(tables.find((entry) => entry.table.name === 'author')!.select_permissions).toBeUndefined();
    expect(tables.find((entry) => entry.table.name === 'shelf')!.select_permissions!.map((item) => item.role)).toEqual(['user']);
  });
});

describe('select permission checks kept between versions', () => {
  it('checks a kept permission again when a table its filter crosses changed, and not otherwise', async () => {
    const own = await setupGraphqlFixture();
    try {
      const catalog = await introspectCatalog(own.database.pool);
      const metadata = goldenMetadata();
      const tables = metadata.sources[0]!.tables;
      const comment = tables.find((entry) => entry.table.name === 'comment')!;
      comment.select_permissions = [...(comment.select_permissions ?? []), { role: 'crossing', permission: { columns: ['id'], filter: { article: { comments: { id: { _gt: 0 } } } } } }];
      const crossing = (report: ReturnType<typeof checkConsistency>) => report.inconsistencies.filter((item) => (item.definition as { role?: string }).role === 'crossing').map((item) => item.reason);
      expect(crossing(checkConsistency(metadata, catalog))).toEqual([]);
      // Only the article entry is new: the comment entry and its permission are the same objects as before.
      const withoutComments = { ...metadata, sources: [{ ...metadata.sources[0]!, tables: tables.map((entry) => (entry.table.name === 'article' ? { ...entry, array_relationships: entry.array_relationships!.filter((item) => item.name !== 'comments') } : entry)) }] };
      expect(crossing(checkConsistency(withoutComments, catalog))).toEqual(['in table "comment": in permission for role "crossing": no such column or relationship exists: "comments"']);
      expect(crossing(checkConsistency(metadata, catalog))).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe('relationship checks kept between versions', () => {
  it('checks an unchanged entry\'s relationships again when a table they reach stops being served or the catalog changed, ', async () => {
    const own = await setupGraphqlFixture();
    try {
      const metadata = goldenMetadata();
      const relationshipProblems = (report: ReturnType<typeof checkConsistency>) =>
        report.inconsistencies.filter((item) => item.type === 'object_relation' || item.type === 'array_relation').map((item) => `${(item.definition as { table: { name: string } }).table.name}.${(item.definition as { name: string }).name}: ${item.reason}`);
      const catalog = await introspectCatalog(own.database.pool);
      expect(relationshipProblems(checkConsistency(metadata, catalog))).toEqual([]);
      // The other entries are the same objects as before.
      const withoutAuthor = { ...metadata, sources: [{ ...metadata.sources[0]!, tables: metadata.sources[0]!.tables.filter((entry) => entry.table.name !== 'author') }] };
      expect(relationshipProblems(checkConsistency(withoutAuthor, catalog))).toEqual(expect.arrayContaining(['article.author: table "author" is not tracked', 'shelf.owner: table "author" is not tracked']));
      expect(relationshipProblems(checkConsistency(metadata, catalog))).toEqual([]);
      await own.database.sql('alter table article drop constraint article_author_id_fkey');
      expect(relationshipProblems(checkConsistency(metadata, await introspectCatalog(own.database.pool)))).toEqual([
        'author.articles: no foreign constraint exists on the given column(s) author_id',
        'article.author: no foreign constraint exists on the given column(s) author_id',
      ]);
    } finally {
      await own.close();
    }
  });
});

describe('selectPermissionProblem', () => {
  it('points at the offending part of a new permission', async () => {
    const own = await setupGraphqlFixture();
    try {
      const catalog = await introspectCatalog(own.database.pool);
      const model = buildSourceModel(goldenMetadata(), catalog);
      const check = (permission: object) => selectPermissionProblem(model, catalog, relationKey('public', 'article'), { columns: '*', filter: {}, ...permission });
      expect(check({})).toBeNull();
      expect(check({ filter: { author: { name: { _eq: 'X-Service-Name' } }, _or: [{ id: 1 }] } })).toBeNull();
      expect(check({ columns: ['id', 'nope'] })).toEqual({ path: '$.columns[1]', message: 'no such column exists: "nope"' });
      expect(check({ filter: { author: { nope: { _eq: 1 } } } })).toEqual({ path: '$.filter.author.nope', message: 'no such column or relationship exists: "nope"' });
      expect(check({ filter: { title: { _contains: 'x' } } })).toEqual({ path: '$.filter.title._contains', message: 'unknown operator "_contains" for a column of type "String"' });
      expect(check({ filter: { _exists: { _table: 'nope', _where: {} } } })).toEqual({ path: '$.filter._exists._table', message: 'table "nope" is not tracked' });
      expect(check({ filter: { id: { _ceq: ['$', 'nope'] } } })).toEqual({ path: '$.filter.id._ceq', message: 'no such column exists: "nope"' });
    } finally {
      await own.close();
    }
  });
});
