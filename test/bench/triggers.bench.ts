/**
 * Event trigger benchmark (issues 8 and 16): commit-to-webhook latency at 100 and 1,000
 * changes/s, and the sustained delivery rate to a fast local webhook, beside Hasura's
 * structural figures and against the no-log limit (peers/pgoutput-webhooks.ts: pgoutput
 * straight to webhooks, nothing durable in between, in a process of its own) measured in
 * the same run: the sustained part alternates the engine and the limit, each on a table of
 * its own, BENCH_TRIGGERS_ROUNDS times (default 2), and each figure is the median of its
 * rounds. Issue 16's targets are printed beside the figures. Not a test: `npm run build && npx tsx
 * test/bench/triggers.bench.ts` runs it alone (the engine runs from its build); `npm run
 * bench` runs it after the others.
 *
 * The engine runs in a process of its own (as in production: the webhook and the load
 * generator here do not share its event loop), on an embedded PostgreSQL of its own
 * (wal_level=logical, data in .data/bench-triggers-pg) and the NATS at
 * SERVICE_GRAPHQL_NATS_URL (default 127.0.0.1:4222, started by the engine from PATH if
 * nothing answers). Settings: BENCH_TRIGGERS_PG_PORT (default 5443),
 * BENCH_TRIGGERS_CHANGES (sustained part, per round and target, default 30000), SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE,
 * BENCH_ENGINE_NODE_ARGS (extra node flags for the engine, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { cpuSeconds, createBenchDatabase, machineBusySeconds, median, natsServerPids, runAloneIfMain, startBenchEngine, startTarget, type Target } from './harness.js';

const ENGINE_PORT = 5570;
const CHANGES = Number(process.env.BENCH_TRIGGERS_CHANGES ?? 30_000);
const POOL = process.env.SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE ?? '100';
const ROUNDS = Number(process.env.BENCH_TRIGGERS_ROUNDS ?? 2);
/** The engine runs as users run it: an admin secret set (and sent), logs at the default level (a webhook-log line per call). */
const ADMIN_SECRET = 'bench-admin-secret';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const TRIGGERS_BENCH_TITLE = `event triggers (one engine process, pool ${POOL}), beside Hasura v2's structural figures`;
export const TRIGGERS_BENCH_HEADER = ['measure', 'this engine', 'target (issue 16)', 'Hasura v2 (structural)'];

/** A fast local webhook that notes when each row's first event arrived. */
class BenchWebhook {
  readonly received = new Map<number, number>();
  total = 0;
  readonly #server: Server;

  constructor() {
    this.#server = createServer((request, response) => {
      let raw = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (raw += chunk));
      request.on('end', () => {
        const at = performance.now();
        const id = Number(/"new":\{"id":(\d+)/.exec(raw)?.[1]);
        if (!this.received.has(id)) this.received.set(id, at);
        this.total++;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }
}

export async function runTriggersBench(natsUrl = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222'): Promise<string[][]> {
  const database = await createBenchDatabase({ dataDir: '.data/bench-triggers-pg', port: Number(process.env.BENCH_TRIGGERS_PG_PORT ?? 5443) });
  const { url: databaseUrl, pool: db } = database;
  const hook = new BenchWebhook();
  const webhook = await hook.listen();
  const limitHook = new BenchWebhook();
  const limitWebhook = await limitHook.listen();
  let engine: Target | null = null;
  let limit: Target | null = null;
  try {
    await db.query('create table change (id int primary key, v text)');
    await db.query('create table change_direct (id int primary key, v text)');
    engine = await startBenchEngine({ databaseUrl, natsUrl, port: ENGINE_PORT, prefix: `bencht${randomBytes(3).toString('hex')}`, adminSecret: ADMIN_SECRET, env: { SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE: POOL } });
    const engineUrl = engine.url;
    const query = async (body: unknown) => {
      const response = await fetch(`${engineUrl}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-admin-secret': ADMIN_SECRET }, body: JSON.stringify(body) });
      if (response.status !== 200) throw new Error(`${JSON.stringify(body)}: ${await response.text()}`);
    };
    await query({ type: 'track_table', args: { table: 'change' } });
    await query({ type: 'create_event_trigger', args: { name: 'change_insert', table: 'change', webhook, insert: { columns: '*' } } });

    limit = await startTarget(process.execPath, ['--import', 'tsx', 'test/bench/peers/pgoutput-webhooks.ts', databaseUrl, 'change_direct', limitWebhook, POOL], {}, /listening/, () => limitWebhook);

    let nextId = 1;
    const enginePid = engine.child.pid!;
    /** CPU milliseconds per event between two readings (null when either is unknown or nothing arrived). */
    const perEvent = (before: number | null, after: number | null, events: number) => (before === null || after === null || events === 0 ? null : ((after - before) * 1000) / events);
    /**
     * Single-row transactions at `rate` per second for `seconds`; latency = webhook receipt -
     * commit start; the engine's CPU from the first commit to the last delivery, per event.
     */
    const paced = async (rate: number, seconds: number): Promise<{ p50: number; p99: number; lost: number; cpuMsPerEvent: number | null }> => {
      const sent = new Map<number, number>();
      const total = rate * seconds;
      const cpuBefore = await cpuSeconds(enginePid);
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
      while ([...sent.keys()].some((id) => !hook.received.has(id)) && performance.now() < deadline) await sleep(50);
      const cpuAfter = await cpuSeconds(enginePid);
      const latencies = [...sent].filter(([id]) => hook.received.has(id)).map(([id, at]) => hook.received.get(id)! - at).sort((a, b) => a - b);
      const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
      return { p50: pick(0.5), p99: pick(0.99), lost: total - latencies.length, cpuMsPerEvent: perEvent(cpuBefore, cpuAfter, latencies.length) };
    };
    // The NATS servers of this machine (the engine's, when NATS runs here; any other one too).
    const natsPids = await natsServerPids();
    const natsCpu = async (): Promise<number | null> => {
      if (natsPids.length === 0) return null;
      const each = await Promise.all(natsPids.map(cpuSeconds));
      return each.some((seconds) => seconds === null) ? null : each.reduce((sum: number, seconds) => sum + seconds!, 0);
    };
    /**
     * `count` rows committed into `table` in transactions of 500 as fast as PostgreSQL takes
     * them; rate = delivered / (last delivery - first commit); CPU per delivered event of the
     * delivering process, of the NATS servers and of the whole machine (which includes what
     * the other target does meanwhile: its idle polls, its slot decoding the same WAL).
     */
    const sustained = async (count: number, table: string, receiver: BenchWebhook, pid: number): Promise<Sustained> => {
      const first = nextId;
      const cpuBefore = await cpuSeconds(pid);
      const natsBefore = await natsCpu();
      const machineBefore = await machineBusySeconds();
      const started = performance.now();
      for (let offset = 0; offset < count; offset += 500) {
        await db.query(`insert into ${table} select g, $3 from generate_series($1::int, $2::int) g`, [first + offset, first + Math.min(offset + 500, count) - 1, 'y']);
      }
      const insertSeconds = (performance.now() - started) / 1000;
      nextId += count;
      const deadline = performance.now() + 120_000;
      const ids = Array.from({ length: count }, (_, i) => first + i);
      while (ids.some((id) => !receiver.received.has(id)) && performance.now() < deadline) await sleep(100);
      const times = ids.filter((id) => receiver.received.has(id)).map((id) => receiver.received.get(id)!);
      // A loop, not Math.max(...times): spreading 100,000s of arguments overflows the stack.
      const span = (times.reduce((latest, at) => Math.max(latest, at), started) - started) / 1000;
      const [cpuAfter, natsAfter, machineAfter] = [await cpuSeconds(pid), await natsCpu(), await machineBusySeconds()];
      return {
        perSecond: times.length / span,
        lost: count - times.length,
        insertSeconds,
        cpuMsPerEvent: perEvent(cpuBefore, cpuAfter, times.length),
        natsMsPerEvent: perEvent(natsBefore, natsAfter, times.length),
        machineMsPerEvent: perEvent(machineBefore, machineAfter, times.length),
      };
    };

    await paced(50, 2); // warm-up: connections, JIT, consumer
    const at100 = await paced(100, 10);
    const at1000 = await paced(1000, 10);
    const runs: [string, string, BenchWebhook, number][] = [
      ['engine', 'change', hook, enginePid],
      ['limit', 'change_direct', limitHook, limit.child.pid!],
    ];
    const rounds = new Map<string, Sustained[]>(runs.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, table, receiver, pid] of round % 2 === 0 ? runs : [...runs].reverse()) rounds.get(name)!.push(await sustained(CHANGES, table, receiver, pid));
    }
    const bulk = medianSustained(rounds.get('engine')!);
    const direct = medianSustained(rounds.get('limit')!);
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const cpu = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(3)} ms`);
    const share = bulk.perSecond / direct.perSecond;
    return [
      ['commit-to-webhook p50 at 100 changes/s', ms(at100.p50), '<= 5 ms', 'up to 1 s poll interval when idle (~0.5 s mean)'],
      ['commit-to-webhook p99 at 100 changes/s', ms(at100.p99), '<= 25 ms', '~1 s'],
      ['commit-to-webhook p50 at 1,000 changes/s', ms(at1000.p50), '-', 'batches of 100 per fetch, 1 s poll'],
      ['commit-to-webhook p99 at 1,000 changes/s', ms(at1000.p99), '-', '~1 s+'],
      ['engine CPU per event at 100 / 1,000 changes/s (a transaction each)', `${cpu(at100.cpuMsPerEvent)} / ${cpu(at1000.cpuMsPerEvent)}`, '-', '-'],
      [`sustained delivered events/s (${CHANGES.toLocaleString('en')} changes, median of ${ROUNDS})`, bulk.perSecond.toFixed(0), '-', '≤ 100 events per fetch cycle per instance (pool 100)'],
      ['no-log limit events/s (pgoutput straight to webhooks, same run)', direct.perSecond.toFixed(0), '-', '-'],
      ['engine / no-log limit events/s', `${(share * 100).toFixed(0)}%`, '>= 75%', '-'],
      // On a shared machine the limit's own rate moves from round to round: each round's figure shows how far.
      ['events/s round by round: engine; limit', `${perRound(rounds.get('engine')!)}; ${perRound(rounds.get('limit')!)}`, '-', '-'],
      ['CPU per delivered event: engine / limit (sustained part)', `${cpu(bulk.cpuMsPerEvent)} / ${cpu(direct.cpuMsPerEvent)}`, '-', '-'],
      ['NATS server CPU per delivered event: engine / limit', `${cpu(bulk.natsMsPerEvent)} / ${cpu(direct.natsMsPerEvent)}`, '-', '-'],
      ['whole machine CPU per delivered event (every process, loader and webhook included): engine / limit', `${cpu(bulk.machineMsPerEvent)} / ${cpu(direct.machineMsPerEvent)}`, '-', '-'],
      ['events lost (engine; limit)', `${at100.lost + at1000.lost + bulk.lost}; ${direct.lost}`, '0', '-'],
      [`(${CHANGES.toLocaleString('en')} rows committed per round in ${bulk.insertSeconds.toFixed(1)} s; over the whole run ${hook.total} webhook requests for the engine's ${hook.received.size} changes)`, '', '', ''],
    ];
  } finally {
    await limit?.stop();
    await engine?.stop();
    await database.close();
    await hook.close();
    await limitHook.close();
  }
}

interface Sustained {
  perSecond: number;
  lost: number;
  insertSeconds: number;
  /** CPU per delivered event of the delivering process, of the NATS server(s), and of every process on the machine. */
  cpuMsPerEvent: number | null;
  natsMsPerEvent: number | null;
  machineMsPerEvent: number | null;
}

/** Medians of the rounds; losses summed. */
function medianSustained(list: Sustained[]): Sustained {
  const medianOf = (pick: (item: Sustained) => number | null) => {
    const known = list.map(pick).filter((value): value is number => value !== null);
    return known.length === 0 ? null : median(known);
  };
  return {
    perSecond: median(list.map((item) => item.perSecond)),
    lost: list.reduce((sum, item) => sum + item.lost, 0),
    insertSeconds: median(list.map((item) => item.insertSeconds)),
    cpuMsPerEvent: medianOf((item) => item.cpuMsPerEvent),
    natsMsPerEvent: medianOf((item) => item.natsMsPerEvent),
    machineMsPerEvent: medianOf((item) => item.machineMsPerEvent),
  };
}

/** Each round's events/s, in the order run. */
function perRound(rounds: Sustained[]): string {
  return rounds.map((round) => round.perSecond.toFixed(0)).join(', ');
}

await runAloneIfMain(import.meta.url, TRIGGERS_BENCH_TITLE, TRIGGERS_BENCH_HEADER, () => runTriggersBench());
