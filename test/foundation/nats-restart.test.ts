import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { startPrivateNats, type PrivateNats } from '../harness/nats-server.js';

let db: TestDatabase;
let nats: PrivateNats;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  nats = await startPrivateNats();
  // Every request through NATS, so that the outage is felt.
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_NATS_URL: nats.url, SERVICE_GRAPHQL_BUS_TIMEOUT_MS: '2000', SERVICE_GRAPHQL_BUS_LOCAL_DELIVERY: 'false' } });
});

afterAll(async () => {
  await engine?.stop();
  await nats?.kill();
  await db?.drop();
});

describe('NATS restart', () => {
  it('with local delivery, keeps answering from its own actors while NATS is down', async () => {
    const local = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_NATS_URL: nats.url } });
    try {
      await nats.kill();
      const during = await local.query({ type: 'export_metadata', args: {} });
      expect(during.status).toBe(200);
      expect((await local.graphql({ query: '{ __typename }' })).json).toEqual({ data: { __typename: 'query_root' } });
    } finally {
      await nats.start();
      await local.stop();
    }
  });

  it('answers 503 while NATS is down and serves again after it is back, without a restart', async () => {
    // The test before restarted NATS under this engine too: it is healthy once it has reconnected.
    let health = '';
    for (let attempt = 0; attempt < 100 && health !== 'OK'; attempt++) {
      health = (await engine.get('/healthz')).text;
      if (health !== 'OK') await new Promise((r) => setTimeout(r, 200));
    }
    expect(health).toBe('OK');

    await nats.kill();
    const during = await engine.query({ type: 'export_metadata', args: {} });
    expect(during.status).toBe(503);
    expect(during.json.code).toBe('unavailable');

    await nats.start();
    let status = 0;
    // Generous: under a loaded CI machine reconnecting every actor's subscriptions takes a while.
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      status = (await engine.query({ type: 'export_metadata', args: {} })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
    expect((await engine.graphql({ query: '{ __typename }' })).json).toEqual({ data: { __typename: 'query_root' } });
  }, 90_000);
});
