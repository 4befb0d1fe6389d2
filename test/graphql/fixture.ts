import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { QueryConfig } from 'pg';
import { checkConsistency } from '../../actors/schema/consistency/check.js';
import { buildGraphqlEngine, type GraphqlEngine } from '../../actors/schema/execution/engine.js';
import type { Metadata } from '../../src/metadata/types.js';
import { introspectCatalog } from '../../src/pg/catalog.js';
import { answerOf, isSubmittedQuery, type Answer } from '../../src/pg/submitted-query.js';
import type { Pool } from '../../src/pg/pool.js';
import { makeSession } from '../../src/session/session.js';
import { testBoundedPool } from '../harness/bounded-pool.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

/**
 * The golden data set (test/golden/seed.sql + metadata.json) in a fresh database, with
 * an engine over it and a pool that records every statement the engine runs.
 */
export interface ExecutedStatement {
  text: string;
  values: unknown[];
}

export interface GraphqlRun {
  /** The response bytes as text, exactly as they would go to the client. */
  text: string;
  body: { data?: unknown; errors?: Array<{ message: string; extensions: { path: string; code: string; internal?: unknown } }> };
  statements: ExecutedStatement[];
}

export interface RunOptions {
  variables?: Record<string, unknown>;
  operationName?: string;
  role?: string;
  sessionVariables?: Record<string, string>;
  /** Mutations: end the transaction with ROLLBACK instead of COMMIT, leaving the data set as it was. */
  rollback?: boolean;
  /** Send the request to the Relay API (/v1beta1/relay). */
  relay?: boolean;
}

export interface GraphqlFixture {
  database: TestDatabase;
  engine: GraphqlEngine;
  run(query: string, options?: RunOptions): Promise<GraphqlRun>;
  close(): Promise<void>;
}

const goldenDir = fileURLToPath(new URL('../golden/', import.meta.url));

export function goldenMetadata(): Metadata {
  return JSON.parse(readFileSync(`${goldenDir}metadata.json`, 'utf8')) as Metadata;
}

export interface FixtureOptions {
  /** Defaults to the golden metadata. */
  metadata?: Metadata;
  /** Run after the golden seed, before the catalog is read. */
  setupSql?: string;
  /** Where the database comes from; defaults to the run's PostgreSQL. */
  createDatabase?: () => Promise<TestDatabase>;
}

export async function setupGraphqlFixture(options: FixtureOptions = {}): Promise<GraphqlFixture> {
  const metadata = options.metadata ?? goldenMetadata();
  const database = await (options.createDatabase ?? createTestDatabase)();
  await database.sql(readFileSync(`${goldenDir}seed.sql`, 'utf8'));
  if (options.setupSql !== undefined) await database.sql(options.setupSql);
  const catalog = await introspectCatalog(database.pool);
  const report = checkConsistency(metadata, catalog);
  if (report.inconsistencies.length > 0) throw new Error(`fixture metadata is inconsistent: ${JSON.stringify(report.inconsistencies)}`);
  const engine = buildGraphqlEngine(report.consistent, catalog);
  return {
    database,
    engine,
    async run(query, options = {}) {
      const statements: ExecutedStatement[] = [];
      // Transaction control is not recorded: `statements` are the compiled ones.
      const control = /^(begin|commit|rollback)$/;
      const recording = {
        connect: async () => {
          const client = await database.pool.connect();
          let inTransaction = false;
          return {
            query: async (config: QueryConfig | string) => {
              if (typeof config === 'string' && control.test(config)) {
                inTransaction = config === 'begin';
                return client.query(options.rollback === true && config === 'commit' ? 'rollback' : config);
              }
              const query = typeof config === 'string' ? { text: config } : config;
              statements.push({ text: query.text, values: query.values ?? [] });
              if (options.rollback !== true || inTransaction) return client.query(query);
              // A statement that is its own transaction, undone before its caller hears the answer.
              if (isSubmittedQuery(query)) {
                const answer = query.callback;
                let heard: Answer = { error: undefined };
                try {
                  await client.query('begin');
                  heard = await answerOf(client, query);
                  await client.query('rollback');
                } catch (error) {
                  heard = { error: heard.error ?? (error as Error) };
                }
                answer(heard.error, heard.result);
                return query;
              }
              await client.query('begin');
              try {
                return await client.query(query);
              } finally {
                await client.query('rollback');
              }
            },
            // The engine keeps its prepared statements bounded per connection (src/pg/prepared-statements.ts).
            connection: (client as unknown as { connection: unknown }).connection,
            release: (error?: Error | boolean) => client.release(error),
            on: (event: 'error', listener: (error: Error) => void) => client.on(event, listener),
            off: (event: 'error', listener: (error: Error) => void) => client.off(event, listener),
          };
        },
      } as unknown as Pool;
      const session = makeSession(options.role ?? 'admin', options.sessionVariables ?? {});
      const bytes = await engine.execute(
        { query, variables: options.variables ?? null, operationName: options.operationName ?? null },
        session,
        { db: testBoundedPool(recording, database.url), requestId: 'test', ...(options.relay === true ? { relay: true } : {}) },
      );
      const text = new TextDecoder().decode(bytes);
      return { text, body: JSON.parse(text) as GraphqlRun['body'], statements };
    },
    close: () => database.drop(),
  };
}
