import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, testPrefix, type TestEngine } from '../harness/engine.js';
import { SECRET, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/**
 * The functions actor answers `<p>.functions.<verb>` for the schema actor's operations:
 * a process without it asks the cluster over NATS, and is told when nobody answers.
 */
let fx: FunctionsFixture;
let schemaOnly: TestEngine;
let functionsOnly: TestEngine | undefined;
const prefix = testPrefix();

beforeAll(async () => {
  fx = await startFunctionsFixture();
  schemaOnly = await startTestEngine({
    databaseUrl: fx.db.url,
    prefix,
    env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_ACTORS: 'edge,schema,auth', SERVICE_GRAPHQL_BUS_TIMEOUT_MS: '2000' },
  });
});

afterAll(async () => {
  await functionsOnly?.stop();
  await schemaOnly?.stop();
  await fx?.stop();
});

describe('the functions actor', () => {
  it('is asked over NATS by a schema actor that does not run it', async () => {
    const track = { type: 'track_function', args: { schema: 'public', name: 'stable_articles' } };
    const unanswered = await schemaOnly.query(track);
    expect(unanswered.status).toBe(503);
    expect(unanswered.json.code).toBe('unavailable');

    functionsOnly = await startTestEngine({ databaseUrl: fx.db.url, prefix, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_ACTORS: 'functions' } });
    expect((await schemaOnly.query(track)).json).toEqual({ message: 'success' });
    const refused = await schemaOnly.query({ type: 'track_function', args: { schema: 'public', name: 'returns_int' } });
    expect(refused.json.code).toBe('invalid-configuration');
    expect(refused.json.error).toContain('the function does not return a "COMPOSITE" type');
  });
});
