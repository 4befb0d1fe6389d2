import { describe, expect, it } from 'vitest';
import { defaultSource, type Metadata, type TableEntry } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import type { OperationContext } from './operation.js';
import { untrackTable } from './tables.js';

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };
const tag = { schema: 'public', name: 'tag' };

function contextOf(tables: TableEntry[]): OperationContext {
  const metadata: Metadata = { version: 3, sources: [defaultSource(tables)] };
  const catalog = { relations: new Map() } as unknown as Catalog;
  return { metadata, catalog, argsPath: '$.args' } as unknown as OperationContext;
}

describe('untrack_table with cascade', () => {
  it('makes new entries only of the tables that lose a relationship, so checks kept per entry stay valid for the others', async () => {
    const authorEntry: TableEntry = { table: author, array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: article, column: 'author_id' } } }] };
    const articleEntry: TableEntry = {
      table: article,
      object_relationships: [
        { name: 'author', using: { manual_configuration: { remote_table: author, column_mapping: { author_id: 'id' } } } },
        { name: 'tag', using: { manual_configuration: { remote_table: tag, column_mapping: { id: 'article_id' } } } },
      ],
    };
    const tagEntry: TableEntry = { table: tag, object_relationships: [{ name: 'article', using: { manual_configuration: { remote_table: article, column_mapping: { article_id: 'id' } } } }] };

    const outcome = await untrackTable.run({ table: author, cascade: true }, contextOf([authorEntry, articleEntry, tagEntry]));
    const tables = outcome.metadata!.sources[0]!.tables;

    expect(tables.map((entry) => entry.table.name)).toEqual(['article', 'tag']);
    expect(tables[0]).not.toBe(articleEntry);
    expect(tables[0]!.object_relationships!.map((relationship) => relationship.name)).toEqual(['tag']);
    expect(tables[1]).toBe(tagEntry);
  });

  it('refuses without cascade while other tables point at the table, naming them', async () => {
    const authorEntry: TableEntry = { table: author };
    const articleEntry: TableEntry = { table: article, object_relationships: [{ name: 'author', using: { manual_configuration: { remote_table: author, column_mapping: { author_id: 'id' } } } }] };
    await expect(untrackTable.run({ table: author }, contextOf([authorEntry, articleEntry]))).rejects.toMatchObject({
      code: 'dependency-error',
      message: 'cannot drop due to the following dependent objects : relationship article.author',
    });
  });
});
