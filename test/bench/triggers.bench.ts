/**
 * Event trigger benchmark (issue 8, "Performance"): commit-to-webhook latency at 100 and
 * 1,000 changes/s, and the sustained delivery rate to a fast local webhook, beside
 * Hasura's structural figures. Not a test: `npx tsx test/bench/triggers.bench.ts`.
 *
 * Uses an embedded PostgreSQL of its own (wal_level=logical, data in .data/bench-pg) and
 * the NATS at 127.0.0.1:4222 (started from PATH if nothing answers there).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ensureLocalNats } from '../../src/bus/local-nats.js';
import { loadConfig } from '../../src/config/load.js';
import { startEngine } from '../../src/engine.js';
import { createLogger } from '../../src/log/logger.js';
import { startEmbeddedPostgres } from '../../src/pg/embedded.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const received = new Map<number, number>();
let receivedTotal = 0;
const server = createServer((request, response) => {
  let raw = '';
  request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  request.on('end', () => {
    const at = performance.now();
    const id = Number(/"new":\{"id":(\d+)/.exec(raw)?.[1]);
    if (!received.has(id)) received.set(id, at);
    receivedTotal++;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{}');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const webhook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

const postgres = await startEmbeddedPostgres({ dataDir: '.data/bench-pg', port: Number(process.env.SERVICE_GRAPHQL_BENCH_PG_PORT ?? 5441) });
const natsUrl = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222';
const nats = await ensureLocalNats({ url: natsUrl, dataDir: '.data/bench' });
const dbName = `bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: postgres.url });
await admin.connect();
await admin.query(`create database ${dbName}`);
const databaseUrl = postgres.url.replace(/\/postgres$/, `/${dbName}`);
const db = new pg.Pool({ connectionString: databaseUrl, max: 8 });
await db.query('create table change (id int primary key, v text)');

const prefix = `bench${randomBytes(3).toString('hex')}`;
const config = loadConfig(new Map(), {
  SERVICE_GRAPHQL_DATABASE_URL: databaseUrl,
  SERVICE_GRAPHQL_NATS_URL: natsUrl,
  SERVICE_GRAPHQL_NATS_PREFIX: prefix,
  SERVICE_GRAPHQL_SERVER_HOST: '127.0.0.1',
  SERVICE_GRAPHQL_SERVER_PORT: '0',
  ...(process.env.SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE ? { SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE: process.env.SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE } : {}),
});
const engine = await startEngine(config, createLogger('warn'));
const query = async (body: unknown) => {
  const response = await fetch(`${engine.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`${JSON.stringify(body)}: ${await response.text()}`);
};
await query({ type: 'track_table', args: { table: 'change' } });
await query({ type: 'create_event_trigger', args: { name: 'change_insert', table: 'change', webhook, insert: { columns: '*' } } });

let nextId = 1;

/** Single-row transactions at `rate` per second for `seconds`; latency = webhook receipt - commit start. */
async function paced(rate: number, seconds: number): Promise<{ p50: number; p99: number; lost: number }> {
  const sent = new Map<number, number>();
  const total = rate * seconds;
  const started = performance.now();
  const inserts: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const id = nextId++;
    sent.set(id, performance.now());
    inserts.push(db.query('insert into change values ($1, $2)', [id, 'x']));
  }
  await Promise.all(inserts);
  const deadline = performance.now() + 30_000;
  while ([...sent.keys()].some((id) => !received.has(id)) && performance.now() < deadline) await sleep(50);
  const latencies = [...sent].filter(([id]) => received.has(id)).map(([id, at]) => received.get(id)! - at).sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { p50: pick(0.5), p99: pick(0.99), lost: total - latencies.length };
}

/** `count` rows committed in transactions of 500 as fast as PostgreSQL takes them; rate = delivered / (last - first delivery). */
async function sustained(count: number): Promise<{ perSecond: number; lost: number; insertSeconds: number }> {
  const first = nextId;
  const started = performance.now();
  for (let offset = 0; offset < count; offset += 500) {
    await db.query('insert into change select g, $3 from generate_series($1::int, $2::int) g', [first + offset, first + Math.min(offset + 500, count) - 1, 'y']);
  }
  const insertSeconds = (performance.now() - started) / 1000;
  nextId += count;
  const deadline = performance.now() + 120_000;
  const ids = Array.from({ length: count }, (_, i) => first + i);
  while (ids.some((id) => !received.has(id)) && performance.now() < deadline) await sleep(100);
  const times = ids.filter((id) => received.has(id)).map((id) => received.get(id)!);
  const span = (Math.max(...times) - started) / 1000;
  return { perSecond: times.length / span, lost: count - times.length, insertSeconds };
}

await paced(50, 2); // warm-up: connections, JIT, consumer
const at100 = await paced(100, 10);
const at1000 = await paced(1000, 10);
const bulk = await sustained(30_000);

const ms = (value: number) => `${value.toFixed(1)} ms`;
console.log(`
| measure (2-core machine, one engine process, pool ${config.eventsHttpPoolSize}) | this engine | Hasura v2 (structural) |
| ------------------------------------------------ | ----------- | ---------------------- |
| commit-to-webhook p50 at 100 changes/s            | ${ms(at100.p50).padEnd(11)} | up to 1 s poll interval when idle (~0.5 s mean) |
| commit-to-webhook p99 at 100 changes/s            | ${ms(at100.p99).padEnd(11)} | ~1 s |
| commit-to-webhook p50 at 1,000 changes/s          | ${ms(at1000.p50).padEnd(11)} | batches of 100 per fetch, 1 s poll |
| commit-to-webhook p99 at 1,000 changes/s          | ${ms(at1000.p99).padEnd(11)} | ~1 s+ |
| sustained delivered events/s (30,000 changes)     | ${bulk.perSecond.toFixed(0).padEnd(11)} | ≤ 100 events per fetch cycle per instance (pool 100) |
| events lost                                       | ${at100.lost + at1000.lost + bulk.lost}           | - |
(30,000 rows committed in ${bulk.insertSeconds.toFixed(1)} s; the rate counts from the first commit to the last delivery; webhook requests incl. duplicates: ${receivedTotal})
`);

await engine.stop();
await db.end();
const cleanup = new pg.Client({ connectionString: postgres.url });
await cleanup.connect();
for (let i = 0; i < 50; i++) {
  const slots = await cleanup.query(`select slot_name, active from pg_replication_slots where database = $1`, [dbName]);
  if (slots.rows.length === 0) break;
  for (const slot of slots.rows) if (!slot.active) await cleanup.query('select pg_drop_replication_slot($1)', [slot.slot_name]).catch(() => undefined);
  await sleep(200);
}
await cleanup.query(`drop database ${dbName} with (force)`).catch((error: unknown) => console.error(String(error)));
await cleanup.end();
await admin.end();
await postgres.stop();
await nats.stop();
server.close();
process.exit(0);
