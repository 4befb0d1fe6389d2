import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../src/monitor/messages.js';
import { renderCluster, runMonitor } from '../../src/monitor/monitor.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { modernClient } from '../subscriptions/clients.js';

function beat(actor: string, instance: string, gauges: Heartbeat['gauges']): Heartbeat {
  return { actor, instance, host: 'h', pid: 1, started_at: '2026-01-01T00:00:00.000Z', uptime_s: 1, handled: 0, failed: 0, latency_ms: { p50: 0, p90: 0, p99: 0, max: 0 }, gauges };
}

describe('the monitor view', () => {
  it('adds up subscriptions, rate-limit refusals, slot lag and per-trigger lag and failures over the instances', () => {
    const view = renderCluster([
      beat('subscriptions', 'a', { subscriptions: 3, subscriptions_change_driven: 2, subscriptions_polling: 1 }),
      beat('subscriptions', 'b', { subscriptions: 1, subscriptions_change_driven: 0, subscriptions_polling: 1 }),
      beat('schema', 'a', { rate_limited: 4 }),
      beat('schema', 'b', { rate_limited: 1 }),
      beat('triggers', 'a', { reading_slot: true, slot_lag_bytes: 2048, slot_lag_seconds: 1.5, 'event_lag_ms.orders': 120, 'event_failures.orders': 2 }),
      beat('triggers', 'b', { reading_slot: false, slot_lag_bytes: null, 'event_lag_ms.orders': 300, 'event_failures.orders': 1, 'event_lag_ms.users': 5, 'event_failures.users': 0 }),
    ]);
    expect(view).toContain('SUBSCRIPTIONS  4 (change-driven 2, polling 2)');
    expect(view).toContain('RATE LIMITED   5');
    expect(view).toContain('SLOT LAG       2048 bytes, 1.5 s');
    expect(view).toMatch(/^TRIGGER\s+EVENT LAG ms\s+FAILURES$/m);
    expect(view).toMatch(/^orders\s+300\s+3$/m);
    expect(view).toMatch(/^users\s+5\s+0$/m);
    // Per-trigger gauges are in the trigger table, not repeated in their instance's row.
    expect(view).not.toContain('event_lag_ms.orders=');
  });

  it('says when nobody reads the replication slot', () => {
    expect(renderCluster([beat('triggers', 'a', { reading_slot: false, slot_lag_bytes: null })])).toContain('SLOT LAG       -');
  });
});

const SECRET = 'monitor-secret';
const admin = { 'x-service-admin-secret': SECRET };

describe('monitor over a running engine', () => {
  let db: TestDatabase;
  let engine: TestEngine;
  let hook: Server;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.sql('create table item (id int primary key, name text not null)');
    await db.sql("insert into item values (1, 'one')");
    hook = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(500).end('no'));
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_HEARTBEAT_MS: '200' } });
    expect((await engine.query({ type: 'track_table', args: { table: 'item' } })).status).toBe(200);
    expect((await engine.query({ type: 'create_select_permission', args: { table: 'item', role: 'reader', permission: { columns: ['id', 'name'], filter: {} } } })).status).toBe(200);
    expect((await engine.query({ type: 'set_api_limits', args: { rate_limit: { global: { max_reqs_per_min: 100000, unique_params: 'IP' }, per_role: { reader: { max_reqs_per_min: 1, unique_params: 'IP' } } } } })).json).toEqual({ message: 'success' });
    const webhook = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`;
    const created = await engine.query({ type: 'create_event_trigger', args: { name: 'item_created', table: 'item', webhook, insert: { columns: '*' }, retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 2 } } });
    expect(created.json).toEqual({ message: 'success' });
  }, 60_000);

  afterAll(async () => {
    await engine?.stop();
    await db?.drop();
    hook?.close();
  });

  async function view(): Promise<string> {
    let text = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    await runMonitor(engine.engine.bus, sink, { once: true, refreshMs: 200 });
    return text;
  }

  async function until(check: (text: string) => boolean, what: string): Promise<string> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const text = await view();
      if (check(text)) return text;
      if (Date.now() > deadline) throw new Error(`waited for ${what}; the monitor showed:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('shows rate-limit refusals, subscriptions, slot lag and a failing trigger from the actors\' gauges', async () => {
    expect(await view()).toContain('RATE LIMITED   0');
    const reader = { ...admin, 'x-service-role': 'reader' };
    expect((await engine.graphql({ query: '{ item { id } }' }, reader)).json.data).toBeDefined();
    expect((await engine.graphql({ query: '{ item { id } }' }, reader)).json.errors[0].extensions.code).toBe('rate-limit-exceeded');

    const { subscribe, close } = modernClient(engine.url, admin);
    try {
      const watch = subscribe('subscription { item { id } }');
      await watch.waitFor(1);
      await db.sql("insert into item values (2, 'two')");
      const text = await until((shown) => /SUBSCRIPTIONS  1 \(change-driven \d, polling \d\)/.test(shown) && /^item_created\s+\d+\s+1$/m.test(shown), 'the subscription and the failed delivery');
      expect(text).toContain('RATE LIMITED   1');
      expect(text).toMatch(/SLOT LAG       (\d+ bytes|-)/);
    } finally {
      await close();
    }
  }, 40_000);
});
