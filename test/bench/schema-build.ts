import { buildGraphqlEngine } from '../../actors/schema/execution/engine.js';
import { checkConsistency } from '../../actors/schema/consistency/check.js';
import { normalizeMetadata } from '../../src/metadata/normalize.js';
import { defaultSource, type Metadata, type TableEntry } from '../../src/metadata/types.js';
import { introspectCatalog } from '../../src/pg/catalog.js';
import type { Pool } from '../../src/pg/pool.js';
import { makeSession } from '../../src/session/session.js';
import { testBoundedPool } from '../harness/bounded-pool.js';

/**
 * Time to serve the first request for `count` tracked tables (8 columns each, an object
 * and an array relationship, a select permission for role `user`): the metadata check,
 * the engine build and the first request of a role, which makes that role's root fields
 * (its schema is made whole only for what needs every type: lazy-schema.ts).
 */
export async function measureSchemaBuild(pool: Pool, connectionString: string, count: number): Promise<{ tables: number; buildMs: number; roleMs: number }> {
  const exists = await pool.query<{ n: string }>("select count(*) as n from pg_tables where schemaname = 'wide'");
  if (Number(exists.rows[0]!.n) !== count) {
    const statements = ['drop schema if exists wide cascade', 'create schema wide'];
    for (let i = 0; i < count; i++) {
      const parent = i === 0 ? '' : `, parent_id integer references wide.t${i - 1}(id)`;
      statements.push(`create table wide.t${i} (id integer primary key, name text, amount numeric, created_at timestamptz, active boolean, tags text[], data jsonb${parent})`);
    }
    await pool.query(statements.join(';\n'));
  }
  const tables: TableEntry[] = [];
  for (let i = 0; i < count; i++) {
    const entry: TableEntry = {
      table: { schema: 'wide', name: `t${i}` },
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'name', 'amount', 'active'], filter: { active: { _eq: true } }, allow_aggregations: true } }],
    };
    if (i > 0) entry.object_relationships = [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }];
    if (i < count - 1) entry.array_relationships = [{ name: 'children', using: { foreign_key_constraint_on: { table: { schema: 'wide', name: `t${i + 1}` }, column: 'parent_id' } } }];
    tables.push(entry);
  }
  const metadata: Metadata = normalizeMetadata({ version: 3, sources: [defaultSource(tables)] });
  const catalog = await introspectCatalog(pool);
  const context = { db: testBoundedPool(pool, connectionString), requestId: 'bench' };
  const started = performance.now();
  const report = checkConsistency(metadata, catalog);
  const engine = buildGraphqlEngine(report.consistent, catalog);
  await engine.execute({ query: '{ __typename }' }, makeSession('admin'), context);
  const built = performance.now();
  await engine.execute({ query: '{ __typename }' }, makeSession('user'), context);
  return { tables: count, buildMs: built - started, roleMs: performance.now() - built };
}
