import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { ADMIN_SECRET } from './fixtures.js';

/**
 * One database for a test file and any number of engines on it, each on its own
 * subject prefix, stopped after the file. `engineWith(env)` is called in a
 * `describe`; it returns a getter for the engine its `beforeAll` starts. `env` may be a
 * function, for settings known only once a fixture server listens.
 */
export function authSuite(): { engineWith(env: Record<string, string> | (() => Record<string, string>)): () => TestEngine; database(): TestDatabase } {
  let database: TestDatabase | undefined;
  const engines: TestEngine[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    await database?.drop();
  });
  return {
    database: () => database!,
    engineWith(env) {
      let engine: TestEngine | undefined;
      beforeAll(async () => {
        engine = await startTestEngine({ databaseUrl: database!.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET, ...(typeof env === 'function' ? env() : env) } });
        engines.push(engine);
      });
      return () => engine!;
    },
  };
}

export const jwtEnv = (config: Record<string, unknown>, extra: Record<string, string> = {}): Record<string, string> => ({
  SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify(config),
  ...extra,
});
