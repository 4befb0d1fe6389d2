/**
 * Subscriptions benchmark (issue 13, "Performance"): live queries of a role (JWT, a
 * permission filter through a relationship, one cohort per account) while single-row
 * commits touch random cohorts, change-driven (with the default and a 1 s coalescing
 * window) against the engine forced into interval polling at 1 s (Hasura's method) in the
 * same run; idle statements; memory per subscription; and the largest count that keeps
 * p99 under 1 s. Not a test:
 * `npm run build && npx tsx test/bench/subscriptions.bench.ts` runs it alone; `npm run
 * bench` runs it last.
 *
 * The engine runs as users run it (from its build, admin secret set and sent, JWT for the
 * role's subscriptions, logs at the default level) in a process of its own, on an embedded
 * PostgreSQL of its own (data in .data/bench-subs-pg) and the NATS at SERVICE_GRAPHQL_NATS_URL.
 * The clients (the graphql-transport-ws protocol, frames by hand to keep the load
 * generator light) run in this process. Settings: BENCH_SUBS_PG_PORT (default 5444),
 * BENCH_SUBS_SECONDS (commits per run, default 30), BENCH_SUBS_IDLE_SECONDS (default 30),
 * BENCH_SUBS_RAMP (subscription counts tried for the p99 < 1 s limit, default
 * 10000,20000,40000,80000), BENCH_ENGINE_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SignJWT } from 'jose';
import pg from 'pg';
import WebSocket from 'ws';
import { Bus } from '../../src/bus/bus.js';
import { createLogger } from '../../src/log/logger.js';
import type { Heartbeat } from '../../src/monitor/messages.js';
import { cpuSeconds, createBenchDatabase, processTreeCpuSeconds, residentMiB, runAloneIfMain, startBenchEngine, type Target } from './harness.js';

const ENGINE_PORT = 5580;
const DATA_DIR = '.data/bench-subs-pg';
const SECONDS = Number(process.env.BENCH_SUBS_SECONDS ?? 30);
const IDLE_SECONDS = Number(process.env.BENCH_SUBS_IDLE_SECONDS ?? 30);
const RAMP = (process.env.BENCH_SUBS_RAMP ?? '10000,20000,40000,80000').split(',').map(Number);
const COMMITS_PER_SECOND = 20;
const SUBSCRIBERS_PER_COHORT = 5;
const SUBSCRIPTIONS_PER_SOCKET = 50;
const ITEMS_PER_ACCOUNT = 5;
const TENANTS = 50;
const ACCOUNTS = Math.max(...RAMP, 5_000) / SUBSCRIBERS_PER_COHORT;
const SECRET = 'bench-subscriptions-secret';
const JWT_KEY = 'bench-subscriptions-jwt-key-of-32-characters-or-more';

const QUERY = 'subscription Account($id: Int!) { account_by_pk(id: $id) { id name items(order_by: {id: asc}) { id title score } } }';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const SUBSCRIPTIONS_BENCH_TITLE = `live queries (one engine process; ${COMMITS_PER_SECOND} single-row commits/s to random cohorts; a role with a JWT and a permission filter through a relationship)`;
export const SUBSCRIPTIONS_BENCH_HEADER = ['measure', 'change-driven (default)', 'change-driven, 1 s window', 'interval polling at 1 s (Hasura\'s method)', 'default / polling'];

/** One subscriber: its account, and the newest commit it has seen. */
interface Subscriber {
  account: number;
  seen: number;
}

/** The load generator's side: sockets, subscribers and when each commit's result reached each. */
class Clients {
  readonly sockets: WebSocket[] = [];
  readonly subscribers = new Map<string, Subscriber>();
  /** Change-to-client latencies (ms) since the last `take()`. */
  latencies: number[] = [];
  /** When commit `seq` was sent. */
  readonly sentAt = new Map<number, number>();
  #firstResults = 0;

  constructor(readonly url: string) {}

  /** Opens sockets (one JWT, one tenant each) until `count` subscriptions have their first result. */
  async subscribe(count: number): Promise<void> {
    const byTenant = new Map<number, number[]>();
    for (let index = this.subscribers.size; index < count; index++) {
      const account = (Math.floor(index / SUBSCRIBERS_PER_COHORT) % ACCOUNTS) + 1;
      const tenant = account % TENANTS;
      byTenant.set(tenant, [...(byTenant.get(tenant) ?? []), account]);
    }
    const target = this.#firstResults + (count - this.subscribers.size);
    const opening: Promise<void>[] = [];
    for (const [tenant, accounts] of byTenant) {
      for (let start = 0; start < accounts.length; start += SUBSCRIPTIONS_PER_SOCKET) opening.push(this.#open(tenant, accounts.slice(start, start + SUBSCRIPTIONS_PER_SOCKET)));
      // A few hundred handshakes at a time: the engine is also what answers them.
      if (opening.length >= 50) await Promise.all(opening.splice(0));
    }
    await Promise.all(opening);
    const deadline = Date.now() + 300_000;
    while (this.#firstResults < target) {
      if (Date.now() > deadline) throw new Error(`only ${this.#firstResults} of ${target} subscriptions got their first result`);
      await sleep(50);
    }
  }

  take(): number[] {
    const taken = this.latencies;
    this.latencies = [];
    return taken;
  }

  close(): void {
    for (const socket of this.sockets) socket.terminate();
  }

  async #open(tenant: number, accounts: number[]): Promise<void> {
    const token = await new SignJWT({ 'https://service.io/jwt/claims': { 'x-service-allowed-roles': ['user'], 'x-service-default-role': 'user', 'x-service-tenant': String(tenant) } })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('2h')
      .sign(new TextEncoder().encode(JWT_KEY));
    const socket = new WebSocket(`${this.url.replace(/^http/, 'ws')}/v1/graphql`, 'graphql-transport-ws');
    this.sockets.push(socket);
    const ids: string[] = [];
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { headers: { Authorization: `Bearer ${token}` } } })));
      socket.on('message', (data) => {
        const text = String(data);
        if (text.startsWith('{"type":"connection_ack"')) {
          for (const account of accounts) {
            const id = String(this.subscribers.size);
            this.subscribers.set(id, { account, seen: -1 });
            ids.push(id);
            socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: QUERY, variables: { id: account } } }));
          }
          resolve();
        } else if (text.startsWith('{"type":"ping"')) socket.send('{"type":"pong"}');
        else this.#received(text);
      });
      socket.once('close', (code) => reject(new Error(`socket closed with ${code}`)));
    });
  }

  #received(text: string): void {
    const now = performance.now();
    const id = /"id":"(\d+)"/.exec(text)?.[1];
    const subscriber = id === undefined ? undefined : this.subscribers.get(id);
    if (subscriber === undefined || !text.includes('"type":"next"')) throw new Error(`unexpected message: ${text.slice(0, 300)}`);
    if (subscriber.seen === -1) this.#firstResults++;
    let newest = 0;
    for (const match of text.matchAll(/"title" ?: ?"c(\d+)"/g)) newest = Math.max(newest, Number(match[1]));
    const sentAt = this.sentAt.get(newest);
    if (newest > subscriber.seen && subscriber.seen !== -1 && sentAt !== undefined) this.latencies.push(now - sentAt);
    subscriber.seen = Math.max(subscriber.seen, newest);
  }
}

/** The engine's subscriptions gauges and the database's transactions, read together. */
class Counters {
  constructor(
    private readonly bus: Bus,
    private readonly db: pg.Pool,
  ) {}

  async read(): Promise<{ statements: number; transactions: number; gauges: Heartbeat['gauges'] }> {
    const replies = await this.bus.gather<Heartbeat>(this.bus.subjects.monitorPing, {}, 500);
    const gauges = replies.find((reply) => reply.actor === 'subscriptions')?.gauges;
    if (gauges === undefined) throw new Error('no subscriptions actor answered the monitor ping');
    const transactions = Number((await this.db.query('select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()')).rows[0].n);
    return { statements: Number(gauges.subscription_statements), transactions, gauges };
  }
}

interface RunFigures {
  p50: number;
  p99: number;
  deliveries: number;
  statementsPerSecond: number;
  idleStatementsPerSecond: number;
  idleTransactionsPerSecond: number;
  stale: number;
  cpuPerSecond: number | null;
  databaseCpuPerSecond: number | null;
  rssIdle: number;
}

/**
 * Commits at COMMITS_PER_SECOND for `seconds`, each to a random item of a subscribed
 * account; calls `committed` once the last commit is done, then waits for the results
 * still on their way, and returns the latencies, sorted.
 */
async function commitLoad(db: pg.Pool, clients: Clients, cohorts: number, seconds: number, nextSeq: { value: number }, lastOfAccount: Map<number, number>, committed?: () => Promise<void>): Promise<number[]> {
  clients.take();
  const total = COMMITS_PER_SECOND * seconds;
  const started = performance.now();
  const commits: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / COMMITS_PER_SECOND - performance.now();
    if (wait > 1) await sleep(wait);
    const account = 1 + Math.floor(Math.random() * cohorts);
    const item = (account - 1) * ITEMS_PER_ACCOUNT + 1 + Math.floor(Math.random() * ITEMS_PER_ACCOUNT);
    const seq = nextSeq.value++;
    clients.sentAt.set(seq, performance.now());
    lastOfAccount.set(account, seq);
    commits.push(db.query('update item set title = $1 where id = $2', [`c${seq}`, item]));
  }
  await Promise.all(commits);
  await committed?.();
  await sleep(2_000);
  return clients.take().sort((a, b) => a - b);
}

/** The least-squares slope of resident memory (MiB) over subscriptions, in KiB per subscription. */
function slopeKiB(points: [count: number, mib: number][]): string {
  if (points.length < 2) return 'n/a';
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const covariance = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const variance = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  return ((covariance / variance) * 1024).toFixed(1);
}

const percentile = (sorted: number[], q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);

/** Subscribers whose last result is older than the last commit to their account. */
function staleSubscribers(clients: Clients, lastOfAccount: Map<number, number>): number {
  let stale = 0;
  for (const subscriber of clients.subscribers.values()) if ((lastOfAccount.get(subscriber.account) ?? 0) > Math.max(subscriber.seen, 0)) stale++;
  return stale;
}

async function oneRun(options: { url: string; enginePid: number; postgresPid: number; db: pg.Pool; counters: Counters; subscriptions: number; nextSeq: { value: number } }): Promise<{ figures: RunFigures; clients: Clients }> {
  const { db, counters } = options;
  const clients = new Clients(options.url);
  await clients.subscribe(options.subscriptions);
  const cohorts = options.subscriptions / SUBSCRIBERS_PER_COHORT;
  const lastOfAccount = new Map<number, number>();
  await commitLoad(db, clients, cohorts, 3, options.nextSeq, lastOfAccount);

  const before = await counters.read();
  const cpuBefore = await cpuSeconds(options.enginePid);
  const databaseCpuBefore = await processTreeCpuSeconds(options.postgresPid);
  const startedAt = performance.now();
  let elapsed = 0;
  let after = before;
  let cpuAfter: number | null = null;
  let databaseCpuAfter: number | null = null;
  const latencies = await commitLoad(db, clients, cohorts, SECONDS, options.nextSeq, lastOfAccount, async () => {
    elapsed = (performance.now() - startedAt) / 1000;
    after = await counters.read();
    cpuAfter = await cpuSeconds(options.enginePid);
    databaseCpuAfter = await processTreeCpuSeconds(options.postgresPid);
  });
  const stale = staleSubscribers(clients, lastOfAccount);

  const idleBefore = await counters.read();
  await sleep(IDLE_SECONDS * 1000);
  const idleAfter = await counters.read();
  const rssIdle = await residentMiB(options.enginePid);
  // The bench's own read of pg_stat_database is a transaction too.
  const idleTransactions = idleAfter.transactions - idleBefore.transactions - 1;
  return {
    clients,
    figures: {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      deliveries: latencies.length,
      statementsPerSecond: (after.statements - before.statements) / elapsed,
      idleStatementsPerSecond: (idleAfter.statements - idleBefore.statements) / IDLE_SECONDS,
      idleTransactionsPerSecond: idleTransactions / IDLE_SECONDS,
      stale,
      cpuPerSecond: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / elapsed,
      databaseCpuPerSecond: databaseCpuBefore === null || databaseCpuAfter === null ? null : (databaseCpuAfter - databaseCpuBefore) / elapsed,
      rssIdle,
    },
  };
}

export async function runSubscriptionsBench(natsUrl = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222'): Promise<string[][]> {
  const database = await createBenchDatabase({ dataDir: DATA_DIR, port: Number(process.env.BENCH_SUBS_PG_PORT ?? 5444) });
  const { url: databaseUrl, pool: db } = database;
  const log = createLogger('silent');
  let engine: Target | null = null;
  let bus: Bus | null = null;
  try {
    await seed(db);
    const nextSeq = { value: 1 };
    const start = async (env: Record<string, string>) => {
      const prefix = `benchs${randomBytes(3).toString('hex')}`;
      const started = await startBenchEngine({ databaseUrl, natsUrl, port: ENGINE_PORT, prefix, adminSecret: SECRET, env: { SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: JWT_KEY }), ...env } });
      const connected = await Bus.connect({ servers: natsUrl, prefix, name: 'bench-subscriptions', log });
      return { started, connected };
    };
    const stop = async () => {
      await bus?.close();
      await engine?.stop();
      bus = null;
      engine = null;
    };

    // The server's postmaster (first line of postmaster.pid): its backends' CPU is the database's cost.
    const postgresPid = Number((await readFile(`${DATA_DIR}/postmaster.pid`, 'utf8')).split('\n')[0]);
    const run = async (env: Record<string, string>) => {
      ({ started: engine, connected: bus } = await start(env));
      const result = await oneRun({ url: engine.url, enginePid: engine.child.pid!, postgresPid, db, counters: new Counters(bus, db), subscriptions: 5_000, nextSeq });
      result.clients.close();
      await stop();
      return result.figures;
    };
    ({ started: engine, connected: bus } = await start({}));
    await track(engine.url);
    await stop();
    const changeDriven = await run({});
    const windowed = await run({ SERVICE_GRAPHQL_LIVE_QUERIES_CHANGE_COALESCE_MS: '1000' });
    const polling = await run({ SERVICE_GRAPHQL_LIVE_QUERIES_CHANGE_FEED: 'false', SERVICE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_DELAY: '1' });

    const ramp: string[][] = [];
    const memory: [count: number, mib: number][] = [];
    let largest = 0;
    for (const count of [5_000, ...RAMP]) {
      ({ started: engine, connected: bus } = await start({}));
      const clients = new Clients(engine.url);
      await clients.subscribe(count);
      const lastOfAccount = new Map<number, number>();
      await commitLoad(db, clients, count / SUBSCRIBERS_PER_COHORT, 3, nextSeq, lastOfAccount);
      const latencies = await commitLoad(db, clients, count / SUBSCRIBERS_PER_COHORT, Math.min(SECONDS, 20), nextSeq, lastOfAccount);
      const rss = await residentMiB(engine.child.pid!);
      memory.push([count, rss]);
      const p99 = percentile(latencies, 0.99);
      const stale = staleSubscribers(clients, lastOfAccount);
      ramp.push([`${count.toLocaleString('en')} subscriptions (${(count / SUBSCRIBERS_PER_COHORT).toLocaleString('en')} cohorts)`, `p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, ${rss} MiB, ${stale} stale`, '', '', '']);
      clients.close();
      await stop();
      if (!(p99 < 1_000) || stale > 0) break;
      largest = count;
    }

    const modes = [changeDriven, windowed, polling];
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const cores = (value: number | null) => (value === null ? 'n/a' : value.toFixed(2));
    const ratio = (x: number | null, y: number | null) => (x === null || y === null ? '' : y === 0 ? (x === 0 ? '-' : 'n/a') : `${(x / y).toFixed(2)}x`);
    const row = (measure: string, figure: (run: RunFigures) => number | null, show: (value: number | null) => string, compare = true) =>
      [measure, ...modes.map((mode) => show(figure(mode))), compare ? ratio(figure(changeDriven), figure(polling)) : ''];
    return [
      row('5,000 subscriptions, 1,000 cohorts: change-to-client p50', (run) => run.p50, (value) => ms(value!)),
      row('change-to-client p99', (run) => run.p99, (value) => ms(value!)),
      row('results delivered (subscriber x change)', (run) => run.deliveries, String, false),
      row('subscribers left stale after the run', (run) => run.stale, String, false),
      row('subscription SQL statements/s under load', (run) => run.statementsPerSecond, (value) => value!.toFixed(1)),
      row('PostgreSQL CPU under load (cores)', (run) => run.databaseCpuPerSecond, cores),
      row('engine CPU under load (cores)', (run) => run.cpuPerSecond, cores),
      row(`idle ${IDLE_SECONDS} s: subscription SQL statements/s`, (run) => run.idleStatementsPerSecond, (value) => value!.toFixed(2), false),
      row(`idle ${IDLE_SECONDS} s: database transactions/s (all of the engine's)`, (run) => run.idleTransactionsPerSecond, (value) => value!.toFixed(2), false),
      row('engine resident memory, idle with 5,000 subscriptions (MiB)', (run) => run.rssIdle, String, false),
      ['memory per subscription: slope of resident memory over the counts below (the collector makes one reading noisy)', `${slopeKiB(memory)} KiB`, '', '', ''],
      ...ramp,
      ['largest count tried with change-to-client p99 under 1 s', largest.toLocaleString('en'), '', '', ''],
      ['anchor: Hasura v2, 5,000 live queries on 1 CPU, 1 s refetch', '', '', '~60% of a CPU, average latency under 1 s (its docs)', ''],
    ];
  } finally {
    await bus?.close();
    await engine?.stop();
    await database.close();
  }
}

async function seed(db: pg.Pool): Promise<void> {
  await db.query(`
    create table account (id int primary key, name text not null, tenant text not null);
    create table item (id int primary key, account_id int not null references account(id), title text not null, score int not null);
    create index on item (account_id);
    insert into account select g, 'account ' || g, (g % ${TENANTS})::text from generate_series(1, ${ACCOUNTS}) g;
    insert into item select g, (g - 1) / ${ITEMS_PER_ACCOUNT} + 1, 'item ' || g, g % 100 from generate_series(1, ${ACCOUNTS * ITEMS_PER_ACCOUNT}) g;
    analyze;
  `);
}

async function track(url: string): Promise<void> {
  const response = await fetch(`${url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-admin-secret': SECRET },
    body: JSON.stringify({
      type: 'bulk',
      args: [
        { type: 'track_table', args: { table: 'account' } },
        { type: 'track_table', args: { table: 'item' } },
        { type: 'create_array_relationship', args: { table: 'account', name: 'items', using: { foreign_key_constraint_on: { table: 'item', column: 'account_id' } } } },
        { type: 'create_object_relationship', args: { table: 'item', name: 'account', using: { foreign_key_constraint_on: 'account_id' } } },
        { type: 'create_select_permission', args: { table: 'account', role: 'user', permission: { columns: ['id', 'name'], filter: { tenant: { _eq: 'X-Service-Tenant' } } } } },
        { type: 'create_select_permission', args: { table: 'item', role: 'user', permission: { columns: ['id', 'title', 'score'], filter: { account: { tenant: { _eq: 'X-Service-Tenant' } } } } } },
      ],
    }),
  });
  if (response.status !== 200) throw new Error(`tracking failed: ${await response.text()}`);
}

await runAloneIfMain(import.meta.url, SUBSCRIPTIONS_BENCH_TITLE, SUBSCRIPTIONS_BENCH_HEADER, () => runSubscriptionsBench());
