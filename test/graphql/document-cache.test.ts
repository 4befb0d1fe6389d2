import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkConsistency } from '../../actors/schema/consistency/check.js';
import { buildGraphqlEngine, type GraphqlEngine } from '../../actors/schema/execution/engine.js';
import { introspectCatalog } from '../../src/pg/catalog.js';
import { createPool, type Pool } from '../../src/pg/pool.js';
import { makeSession } from '../../src/session/session.js';
import { testBoundedPool } from '../harness/bounded-pool.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { goldenMetadata } from './fixture.js';

/**
 * The engine keeps each query text's prepared documents by role and operation: a text asked
 * again by the same role and operation is a hit, another role or operation prepares its own
 * (and is answered from its own schema), an empty operation name is not an absent one, and
 * all of them together are bounded by planCacheSize, least recently used first out.
 */
let database: TestDatabase;
let pool: Pool;
let engine: GraphqlEngine;
const lookups: boolean[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql(readFileSync(new URL('../golden/seed.sql', import.meta.url), 'utf8'));
  pool = createPool(database.url, { max: 2, applicationName: 'document-cache-test' });
  const catalog = await introspectCatalog(pool);
  engine = buildGraphqlEngine(checkConsistency(goldenMetadata(), catalog).consistent, catalog, { onPlanCache: (hit) => lookups.push(hit) });
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

const TWO_OPERATIONS = 'query first { article(order_by: {id: asc}, limit: 1) { id } } query titles { article(order_by: {id: asc}, limit: 1) { title } }';

async function run(query: string, operationName: string | null, role = 'admin'): Promise<{ answer: unknown; hit: boolean }> {
  const bytes = await engine.execute({ query, operationName }, makeSession(role, role === 'admin' ? {} : { 'x-service-user-id': '1' }), { db: testBoundedPool(pool, database.url, 1), requestId: 'test' });
  return { answer: JSON.parse(new TextDecoder().decode(bytes)), hit: lookups[lookups.length - 1]! };
}

describe('prepared documents by query text, role and operation', () => {
  it('serves one text again from the cache, per role and per operation, each from its own schema', async () => {
    const query = '{ article(order_by: {id: asc}, limit: 1) { id body } }';
    expect(await run(query, null)).toMatchObject({ hit: false, answer: { data: { article: [{ id: 1 }] } } });
    expect((await run(query, null)).hit).toBe(true);
    // `paged` may not read `body`: its schema says so, from its own prepared document.
    const paged = await run(query, null, 'paged');
    expect(paged.hit).toBe(false);
    expect(JSON.stringify(paged.answer)).toContain('validation-failed');
    expect((await run(query, null, 'paged')).hit).toBe(true);
    expect((await run(query, null)).hit).toBe(true);

    expect(await run(TWO_OPERATIONS, 'first')).toMatchObject({ hit: false, answer: { data: { article: [{ id: 1 }] } } });
    const titles = await run(TWO_OPERATIONS, 'titles');
    expect(titles.hit).toBe(false);
    expect(titles.answer).toMatchObject({ data: { article: [{ title: expect.any(String) }] } });
    expect((await run(TWO_OPERATIONS, 'first')).hit).toBe(true);
  });

  it('keeps every operation of one text, whatever their number, each a hit when asked again', async () => {
    const query = '{ author(order_by: {id: asc}, limit: 1) { id } }';
    for (let n = 0; n < 40; n++) {
      const invented = await run(query, `invented${n}`);
      expect(invented.hit).toBe(false);
      expect(JSON.stringify(invented.answer)).toContain(`invented${n}`);
    }
    for (let n = 0; n < 40; n++) expect((await run(query, `invented${n}`)).hit).toBe(true);
  });

  it('takes an empty operation name for a name, not for the document\'s only operation', async () => {
    const query = '{ author(order_by: {id: asc}, limit: 1) { name } }';
    const named = await run(query, '');
    expect(JSON.stringify(named.answer)).toContain('errors');
    const unnamed = await run(query, null);
    expect(unnamed.hit).toBe(false);
    expect(unnamed.answer).toMatchObject({ data: { author: [{ name: expect.any(String) }] } });
    expect(JSON.stringify((await run(query, '')).answer)).toContain('errors');
  });

  it('holds at most planCacheSize documents in all, the least recently used going first', async () => {
    const hits: boolean[] = [];
    const catalog = await introspectCatalog(pool);
    const small = buildGraphqlEngine(checkConsistency(goldenMetadata(), catalog).consistent, catalog, { planCacheSize: 3, onPlanCache: (hit) => hits.push(hit) });
    const ask = async (query: string, role = 'admin') => {
      await small.execute({ query, operationName: null }, makeSession(role, {}), { db: testBoundedPool(pool, database.url, 1), requestId: 'test' });
      return hits[hits.length - 1]!;
    };
    const [a, b] = ['{ author { id } }', '{ article { id } }'];
    expect([await ask(a), await ask(b), await ask(a, 'paged')]).toEqual([false, false, false]);
    expect(await ask(a)).toBe(true);
    // A fourth entry: (b, admin) was used longest ago.
    expect(await ask(b, 'paged')).toBe(false);
    expect([await ask(a), await ask(a, 'paged'), await ask(b, 'paged')]).toEqual([true, true, true]);
    expect(await ask(b)).toBe(false);
  });
});
