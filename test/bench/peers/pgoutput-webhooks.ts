import { randomUUID } from 'node:crypto';
import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from 'pg-logical-replication';
import { Pool } from 'undici';
import { createPool } from '../../../src/pg/pool.js';

/**
 * The events limit (issue 16): pgoutput straight to webhooks, nothing durable in between.
 * It reads one table's inserts from a slot of its own, builds each event's JSON in the
 * webhook payload's shape and POSTs it with undici over `inFlight` keep-alive connections
 * (the engine's default pool), confirming what it received on the library's timer. No
 * event log, no invocation log, no retries: what the engine's events/s is measured against.
 * Usage: tsx pgoutput-webhooks.ts <database url> <table> <webhook url> <in flight>;
 * prints "listening" once the slot is read.
 */
const [databaseUrl, table, webhook, inFlight] = process.argv.slice(2);
const PUBLICATION = `bench_limit_${table}`;
const SLOT = `bench_limit_${table}`;

// The engine's pool helper, as handwritten.ts uses: a bare `pg` here would resolve to the peers' own copy.
const admin = createPool(databaseUrl!, { max: 1, applicationName: 'bench-limit' });
await admin.query(`create publication ${PUBLICATION} for table ${table}`);
await admin.query(`select pg_create_logical_replication_slot($1, 'pgoutput')`, [SLOT]);
await admin.end();

const target = new URL(webhook!);
const pool = new Pool(target.origin, { connections: Number(inFlight), pipelining: 1 });
const headers = { 'content-type': 'application/json' };

function deliver(message: Pgoutput.MessageInsert): void {
  const body = JSON.stringify({
    event: { session_variables: null, op: 'INSERT', data: { old: null, new: message.new } },
    created_at: new Date().toISOString(),
    id: randomUUID(),
    delivery_info: { max_retries: 0, current_retry: 0 },
    trigger: { name: `${table}_insert` },
    table: { schema: message.relation.schema, name: message.relation.name },
  });
  pool.request({ path: target.pathname, method: 'POST', headers, body }).then(
    (response) => response.body.dump(),
    (error: unknown) => process.stderr.write(`webhook call failed: ${String(error)}\n`),
  );
}

const service = new LogicalReplicationService({ connectionString: databaseUrl }, { acknowledge: { auto: true, timeoutSeconds: 1 } });
service.on('data', (_lsn: string, message: Pgoutput.Message) => {
  if (message.tag === 'insert') deliver(message);
});
service.on('error', (error: Error) => process.stderr.write(`replication: ${error.message}\n`));
void service.subscribe(new PgoutputPlugin({ protoVersion: 1, publicationNames: [PUBLICATION] }), SLOT);
service.once('start', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => {
  void service.destroy().finally(() => process.exit(0));
});
