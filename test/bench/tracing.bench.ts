/**
 * Tracing benchmark (issue 17): what OpenTelemetry tracing at 100% sampling costs the
 * by-primary-key query, against the same engine build with tracing off. Not a test:
 * `npm run build && npx tsx test/bench/tracing.bench.ts` runs it alone; `npm run bench`
 * runs it after the others.
 *
 * Two engine processes as users run them (from the build, admin secret set and sent, logs
 * at the default level) on one database of an embedded PostgreSQL (data in
 * .data/bench-tracing-pg), each running the auth, schema and edge actors (no triggers or
 * subscriptions actor, whose replication slots two engines on one database would share):
 * - off: no OTLP endpoint;
 * - on: `OTEL_EXPORTER_OTLP_ENDPOINT` at a sink in this process that answers every export
 *   at once, `OTEL_TRACES_SAMPLER=always_on`: every request exports its spans (HTTP, bus
 *   hops, auth resolution, SQL statement).
 * Rounds alternate the two, each figure is the median. Settings: BENCH_SECONDS (5),
 * BENCH_ROUNDS (3), BENCH_CONNECTIONS (20), BENCH_TRACING_PG_PORT (5445).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seedDataset } from './dataset.js';
import { createBenchDatabase, load, median, probe, runAloneIfMain, startBenchEngine, type LoadResult, type Target } from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const NATS_URL = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222';
const ADMIN_SECRET = 'bench-tracing-admin-secret';
const QUERY = '{ track_by_pk(id: 12345) { id name milliseconds } }';

export const TRACING_BENCH_TITLE = 'OpenTelemetry tracing on the by-primary-key query (admin), off vs on at 100% sampling to a local OTLP sink';
export const TRACING_BENCH_HEADER = ['engine', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs off', 'exports (all rounds)', 'export KiB'];

/** An OTLP/HTTP endpoint that counts what it receives and answers at once. */
interface Sink {
  url: string;
  exports: number;
  bytes: number;
  close(): Promise<void>;
}

async function startSink(): Promise<Sink> {
  const sink: Sink = { url: '', exports: 0, bytes: 0, close: () => new Promise((resolve) => server.close(() => resolve())) };
  const server: Server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (sink.bytes += chunk.length));
    request.on('end', () => {
      sink.exports++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return sink;
}

export async function runTracingBench(natsUrl = NATS_URL): Promise<string[][]> {
  const database = await createBenchDatabase({ dataDir: '.data/bench-tracing-pg', port: Number(process.env.BENCH_TRACING_PG_PORT ?? 5445) });
  const sink = await startSink();
  const engines: Target[] = [];
  try {
    await seedDataset(database.pool);
    const start = (port: number, env: Record<string, string>) =>
      startBenchEngine({
        databaseUrl: database.url,
        natsUrl,
        port,
        prefix: `bench${randomBytes(3).toString('hex')}`,
        adminSecret: ADMIN_SECRET,
        env: { SERVICE_GRAPHQL_ACTORS: 'auth,schema,edge', SERVICE_GRAPHQL_PG_CONNECTIONS: '10', ...env },
      });
    const off = await start(5590, {});
    engines.push(off);
    // The metadata is the database's: tracked through the first engine, the second reads it as it starts.
    const tracked = await probe(`${off.url}/v1/query`, JSON.stringify({ type: 'track_table', args: { table: 'track' } }), { 'x-service-admin-secret': ADMIN_SECRET });
    if ((tracked as { message?: string }).message !== 'success') throw new Error(`metadata set-up failed: ${JSON.stringify(tracked)}`);
    const on = await start(5591, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'bench-tracing' });
    engines.push(on);

    const headers = { 'x-service-admin-secret': ADMIN_SECRET };
    const body = JSON.stringify({ query: QUERY });
    const variants = [
      { name: 'tracing off', engine: off },
      { name: 'tracing on, 100% sampled', engine: on },
    ];
    for (const { name, engine } of variants) {
      const answer = (await probe(`${engine.url}/v1/graphql`, body, headers)) as { data?: { track_by_pk?: unknown } };
      if (answer.data?.track_by_pk == null) throw new Error(`${name} cannot answer the query: ${JSON.stringify(answer)}`);
      await load(`${engine.url}/v1/graphql`, body, { seconds: 2, connections: CONNECTIONS, headers });
    }
    const rounds = new Map<string, LoadResult[]>(variants.map(({ name }) => [name, []]));
    // Only the traced engine has an endpoint: everything the sink gets is its, sent in batches that may land in the next round.
    const exportsBefore = { exports: sink.exports, bytes: sink.bytes };
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, engine } of variants) rounds.get(name)!.push(await load(`${engine.url}/v1/graphql`, body, { seconds: SECONDS, connections: CONNECTIONS, headers }));
    }
    const rps = (name: string) => median(rounds.get(name)!.map((result) => result.rps));
    const baseline = rps('tracing off');
    return variants.map(({ name }) => {
      const results = rounds.get(name)!;
      const figure = rps(name);
      const change = name === 'tracing off' ? '' : `${(((figure - baseline) / baseline) * 100).toFixed(1)}%`;
      const exports = name === 'tracing off' ? ['', ''] : [String(sink.exports - exportsBefore.exports), ((sink.bytes - exportsBefore.bytes) / 1024).toFixed(0)];
      return [name, figure.toFixed(0), median(results.map((r) => r.p50)).toFixed(1), median(results.map((r) => r.p99)).toFixed(1), String(results.reduce((sum, r) => sum + r.errors, 0)), change, ...exports];
    });
  } finally {
    for (const engine of engines.reverse()) await engine.stop();
    await sink.close();
    await database.close();
  }
}

await runAloneIfMain(import.meta.url, TRACING_BENCH_TITLE, TRACING_BENCH_HEADER, () => runTracingBench());
