import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, testPrefix, type HttpResult, type TestEngine } from '../harness/engine.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

export const SECRET = 'remote-secret';
export const admin = { 'x-service-admin-secret': SECRET };
export const asRole = (role: string, variables: Record<string, string> = {}) => ({ ...admin, 'x-service-role': role, ...variables });

export interface RemoteWorld {
  db: TestDatabase;
  engine: TestEngine;
  remote: FixtureServer;
  prefix: string;
  /** POST /v1/query that must succeed. */
  ok(body: unknown): Promise<HttpResult>;
  stop(): Promise<void>;
}

/** A database, a fixture remote server and an engine with an admin secret (and `env`). */
export async function startRemoteWorld(env: Record<string, string> = {}): Promise<RemoteWorld> {
  const db = await createTestDatabase();
  const remote = await startFixtureServer();
  const prefix = testPrefix();
  const engine = await startTestEngine({ databaseUrl: db.url, prefix, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, ...env } });
  return {
    db,
    engine,
    remote,
    prefix,
    async ok(body) {
      const result = await engine.query(body);
      if (result.status !== 200) throw new Error(`expected 200, got ${result.status}: ${result.text}`);
      return result;
    },
    async stop() {
      await engine.stop();
      await remote.stop();
      await db.drop();
    },
  };
}

export function addRemote(name: string, url: string, definition: Record<string, unknown> = {}) {
  return { type: 'add_remote_schema', args: { name, definition: { url, ...definition } } };
}
