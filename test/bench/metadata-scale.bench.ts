import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import type pg from 'pg';
import { normalizeMetadata } from '../../src/metadata/normalize.js';
import { reconcilePublication } from '../../src/pg/replication/publication.js';
import { inTransaction } from '../../src/pg/transaction.js';
import { defaultSource, type Metadata, type TableEntry } from '../../src/metadata/types.js';
import { createBenchDatabase, probe, residentMiB, runAloneIfMain, startBenchEngine, type Target } from './harness.js';
import { roleHeaders } from './role-query.js';

/**
 * Metadata at scale (issue 16): `count` tables in schema `wide`, each with a foreign key
 * to the one before, tracked with an object and an array relationship and select
 * permissions for three roles. Per size: the whole set tracked operation by operation
 * (single `/v1/query` requests, no bulk), one more track_table / relationship / select
 * permission on the full metadata, the publication's reconciliation with the tracked tables,
 * reload_metadata, resident memory, then a cold start of
 * a new engine process to a served schema and the first query of each role on it.
 * Operation by operation stops at BENCH_METADATA_OPS_BUDGET_S seconds per size (default
 * 300) and writes the rest to the store and reloads it, printing the operations done and an
 * estimate of the whole set's time (wholeSetEstimate). Settings: BENCH_METADATA_SIZES (default
 * 500,2000,5000), BENCH_METADATA_PG_PORT (5448), BENCH_METADATA_ENGINE_PORT (5590).
 * Run alone: `npm run build && npx tsx test/bench/metadata-scale.bench.ts`.
 */
export const METADATA_SCALE_BENCH_TITLE = 'metadata at scale: tables with foreign-key relationships and 3 roles with select permissions, one engine process';
export const METADATA_SCALE_BENCH_HEADER = ['tables', 'figure', 'value'];

const NATS_URL = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222';
const SIZES = (process.env.BENCH_METADATA_SIZES ?? '500,2000,5000').split(',').map(Number);
const OPS_BUDGET_MS = Number(process.env.BENCH_METADATA_OPS_BUDGET_S ?? 300) * 1000;
const ENGINE_PORT = Number(process.env.BENCH_METADATA_ENGINE_PORT ?? 5590);
const ROLES = ['reader', 'editor', 'auditor'] as const;
/** The engine runs as users run it: an admin secret set and sent, a role's queries with its JWT, logs at the default level. */
const ADMIN_SECRET = 'bench-admin-secret';
const JWT_KEY = 'bench-metadata-scale-jwt-key-of-32-bytes-or-more';
const ADMIN_HEADERS = { 'x-service-admin-secret': ADMIN_SECRET };
/** Each extra-operation figure is the median of this many samples. */
const SAMPLES = 3;

export async function runMetadataScaleBench(natsUrl = NATS_URL): Promise<string[][]> {
  const rows: string[][] = [];
  for (const count of SIZES) rows.push(...(await measureSize(natsUrl, count)));
  return rows;
}

async function measureSize(natsUrl: string, count: number): Promise<string[][]> {
  const database = await createBenchDatabase({ dataDir: '.data/bench-metadata-pg', port: Number(process.env.BENCH_METADATA_PG_PORT ?? 5448) });
  const targets: Target[] = [];
  const row = (figure: string, value: string) => [String(count), figure, value];
  const rows: string[][] = [];
  try {
    await createTables(database.pool, count);
    const start = () =>
      startBenchEngine({
        databaseUrl: database.url,
        natsUrl,
        port: ENGINE_PORT,
        prefix: `benchmeta${randomBytes(3).toString('hex')}`,
        adminSecret: ADMIN_SECRET,
        env: { SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: JWT_KEY }) },
      });
    const engine = await start();
    targets.push(engine);
    const client = new Pool(engine.url, { connections: 1 });
    const query = (body: unknown) => metadataOp(client, body);

    const tracking = await trackOneByOne(database.pool, query, count);
    const perOp = tracking.ms / tracking.done;
    const budgetReached = tracking.done < operationsFor(count);
    rows.push(row('operations, one request each', `${tracking.done} of ${operationsFor(count)} in ${seconds(tracking.ms)}${budgetReached ? ' (budget reached; the rest written to the store and reloaded)' : ''}`));
    rows.push(row('mean per operation while tracking', `${perOp.toFixed(1)} ms`));

    const oneMore = {
      track: await sample((i) => query({ type: 'track_table', args: { schema: 'wide', name: extraTable(i) } })),
      relationship: await sample((i) => query({ type: 'create_object_relationship', args: { table: { schema: 'wide', name: extraTable(i) }, name: 'first', using: { foreign_key_constraint_on: 'first_id' } } })),
      permission: await sample((i) => query({ type: 'create_select_permission', args: { table: { schema: 'wide', name: 't0' }, role: `extra${i}`, permission: { columns: ['id'], filter: {} } } })),
    };
    rows.push(row('one more track_table', `${oneMore.track.toFixed(0)} ms`));
    rows.push(row('one more create_object_relationship', `${oneMore.relationship.toFixed(0)} ms`));
    rows.push(row('one more create_select_permission', `${oneMore.permission.toFixed(0)} ms`));
    // One more operation on the whole metadata, in the mix the set is made of: per table a track_table, two relationships and three permissions.
    const fullCost = (oneMore.track + 2 * oneMore.relationship + ROLES.length * oneMore.permission) / (3 + ROLES.length);
    if (budgetReached) rows.push(row('whole set operation by operation, estimated', `${seconds(wholeSetEstimate(count, tracking, fullCost))} (the operations done, then the rest at a cost growing in a straight line from their mean to one more operation's on the whole metadata, in the set's mix of operations)`));
    rows.push(...(await reconciliationRows(database.pool, count, row)));
    rows.push(row('reload_metadata', `${(await sample(() => query({ type: 'reload_metadata', args: {} }))).toFixed(0)} ms`));
    rows.push(row('resident memory after tracking', `${await residentMiB(engine.child.pid!)} MiB`));
    await client.close();
    await engine.stop();
    targets.pop();

    const cold = performance.now();
    const restarted = await start();
    targets.push(restarted);
    const log = recentOutput(restarted);
    // A failed query is a figure too (the row says why; the engine's output goes to stderr).
    const timed = async (query: string, role: string) => {
      const headers = role === 'admin' ? ADMIN_HEADERS : await roleHeaders(JWT_KEY, role);
      const started = performance.now();
      return graphql(restarted, query, headers).then(
        () => `${(performance.now() - started).toFixed(0)} ms`,
        (error: unknown) => {
          process.stderr.write(`${String(error)}\nengine output:\n${log()}\n`);
          return `failed: ${String(error).slice(0, 160)}`;
        },
      );
    };
    const admin = await timed(ADMIN_QUERY, 'admin');
    rows.push(row('cold start to a served schema (admin query answered)', admin.startsWith('failed') ? admin : `${(performance.now() - cold).toFixed(0)} ms`));
    for (const role of ROLES) rows.push(row(`first query of role ${role}`, await timed(ROLE_QUERY, role)));
    rows.push(row('resident memory after cold start and first queries', `${await residentMiB(restarted.child.pid!)} MiB`));
    return rows;
  } finally {
    for (const target of targets.reverse()) await target.stop();
    await database.close();
  }
}

const ADMIN_QUERY = '{ wide_t1(limit: 1) { id parent { id } } }';
const ROLE_QUERY = '{ wide_t1(limit: 1) { id name parent { id } } }';

function extraTable(index: number): string {
  return `extra${index}`;
}

/** Tables t0..t(count-1), each but the first referencing the one before, and SAMPLES extra tables referencing t0. */
async function createTables(pool: pg.Pool, count: number): Promise<void> {
  const statements = ['create schema wide'];
  for (let i = 0; i < count; i++) {
    const parent = i === 0 ? '' : `, parent_id integer references wide.t${i - 1}(id)`;
    statements.push(`create table wide.t${i} (id integer primary key, name text, amount numeric, created_at timestamptz, active boolean, tags text[], data jsonb${parent})`);
  }
  for (let i = 0; i < SAMPLES; i++) statements.push(`create table wide.${extraTable(i)} (id integer primary key, first_id integer references wide.t0(id))`);
  for (let from = 0; from < statements.length; from += 500) await pool.query(statements.slice(from, from + 500).join(';\n'));
}

/** The operations that track table `i` with its relationships and permissions, in an order each is valid in. */
function operationsOf(i: number): unknown[] {
  const table = { schema: 'wide', name: `t${i}` };
  const ops: unknown[] = [{ type: 'track_table', args: { table } }];
  if (i > 0) {
    ops.push({ type: 'create_object_relationship', args: { table, name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } } });
    ops.push({ type: 'create_array_relationship', args: { table: { schema: 'wide', name: `t${i - 1}` }, name: 'children', using: { foreign_key_constraint_on: { table, column: 'parent_id' } } } });
  }
  for (const role of ROLES) {
    ops.push({ type: 'create_select_permission', args: { table, role, permission: { columns: ['id', 'name', 'amount', 'active', ...(i > 0 ? ['parent_id'] : [])], filter: { active: { _eq: true } }, allow_aggregations: true } } });
  }
  return ops;
}

function operationsFor(count: number): number {
  return count * (1 + ROLES.length) + (count - 1) * 2;
}

/** The metadata the operations of tables 0..count-1 build, for the part the budget left. */
function metadataFor(count: number): Metadata {
  const tables: TableEntry[] = [];
  for (let i = 0; i < count; i++) {
    const entry: TableEntry = { table: { schema: 'wide', name: `t${i}` } };
    if (i > 0) entry.object_relationships = [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }];
    if (i < count - 1) entry.array_relationships = [{ name: 'children', using: { foreign_key_constraint_on: { table: { schema: 'wide', name: `t${i + 1}` }, column: 'parent_id' } } }];
    entry.select_permissions = ROLES.map((role) => ({ role, permission: { columns: ['id', 'name', 'amount', 'active', ...(i > 0 ? ['parent_id'] : [])], filter: { active: { _eq: true } }, allow_aggregations: true } }));
    tables.push(entry);
  }
  return { version: 3, sources: [defaultSource(tables)] };
}

/**
 * Tracks the tables operation by operation until the budget is spent; the rest is written
 * to the store whole and reloaded (a replace_metadata of thousands of tables is over the
 * request size limit, which NATS' payload limit caps).
 */
async function trackOneByOne(pool: pg.Pool, query: (body: unknown) => Promise<unknown>, count: number): Promise<{ done: number; ms: number }> {
  const started = performance.now();
  let done = 0;
  for (let i = 0; i < count; i++) {
    if (performance.now() - started > OPS_BUDGET_MS) {
      const ms = performance.now() - started;
      await pool.query('update service_catalog.metadata set metadata = $1, resource_version = resource_version + 1 where id = 1', [JSON.stringify(normalizeMetadata(metadataFor(count)))]);
      await query({ type: 'reload_metadata', args: {} });
      return { done, ms };
    }
    for (const op of operationsOf(i)) {
      await query(op);
      done++;
    }
  }
  return { done, ms: performance.now() - started };
}

/**
 * The publication reconciled with the tracked tables, as the triggers actor's lease holder
 * does after every metadata change while it reads the slot (an event trigger, or
 * subscriptions on the change feed), holding the metadata writers' lock: first from the
 * publication as the operations left it (the tables written to the store directly are not
 * in it), then once more with nothing to change.
 */
async function reconciliationRows(pool: pg.Pool, count: number, row: (figure: string, value: string) => string[]): Promise<string[][]> {
  // Every tracked table: the set's and the extra ones the figures before tracked.
  const tables = [...Array.from({ length: count }, (_, i) => `t${i}`), ...Array.from({ length: SAMPLES }, (_, i) => extraTable(i))].map((name) => ({ schema: 'wide', name }));
  const reconcile = async () => {
    const started = performance.now();
    await inTransaction(pool, (client) => reconcilePublication(client, [], tables));
    return performance.now() - started;
  };
  const first = await reconcile();
  const again = await reconcile();
  return [row('publication reconciled with the tracked tables (lease holder, after each change)', `${first.toFixed(0)} ms from the operations' publication; ${again.toFixed(0)} ms with nothing to change`)];
}

/**
 * The time of the whole set when the budget stopped it: the operations done took
 * `tracking.ms`; the rest are costed on a straight line through the mean of those done (at
 * the middle of the tables they tracked) and one more operation on the whole metadata (at
 * `count` tables), each at the middle of the tables it tracks.
 */
function wholeSetEstimate(count: number, tracking: { done: number; ms: number }, fullCost: number): number {
  const tablesDone = tracking.done / (operationsFor(count) / count);
  const firstCost = tracking.ms / tracking.done;
  const at = (tables: number) => firstCost + ((fullCost - firstCost) * (tables - tablesDone / 2)) / (count - tablesDone / 2);
  return tracking.ms + (operationsFor(count) - tracking.done) * at((tablesDone + count) / 2);
}

/** The median time of SAMPLES runs of `run(i)`. */
async function sample(run: (index: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    await run(i);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(SAMPLES / 2)]!;
}

/**
 * One /v1/query request on a kept-alive connection, as a migration tool sends them. Global
 * fetch cost the bench about 0.8 ms of its own CPU a request, on the engine's two cores: in
 * a sequence of operations, time the engine spent waiting for the next one.
 */
async function metadataOp(client: Pool, body: unknown): Promise<unknown> {
  const response = await client.request({ path: '/v1/query', method: 'POST', headers: { 'content-type': 'application/json', ...ADMIN_HEADERS }, body: JSON.stringify(body) });
  const answer = (await response.body.json()) as { error?: unknown };
  if (typeof answer === 'object' && answer !== null && 'error' in answer) throw new Error(`${JSON.stringify(body).slice(0, 200)} failed: ${JSON.stringify(answer)}`);
  return answer;
}

async function graphql(engine: Target, query: string, headers: Record<string, string>): Promise<void> {
  const answer = (await probe(`${engine.url}/v1/graphql`, JSON.stringify({ query }), headers)) as { errors?: unknown };
  if (answer.errors !== undefined) throw new Error(`${JSON.stringify(headers).slice(0, 80)}: ${JSON.stringify(answer.errors)}`);
}

/** The last lines the engine wrote, to show with a failure. */
function recentOutput(target: Target): () => string {
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  target.child.stdout!.on('data', keep);
  target.child.stderr!.on('data', keep);
  return () => output;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

await runAloneIfMain(import.meta.url, METADATA_SCALE_BENCH_TITLE, METADATA_SCALE_BENCH_HEADER, () => runMetadataScaleBench());
