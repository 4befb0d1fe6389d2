import { connect, type Socket } from 'node:net';
import pg from 'pg';
import type { PoolClient } from './pool.js';

/** The protocol's CancelRequest code (PostgreSQL docs, "Canceling Requests in Progress"). */
const CANCEL_REQUEST_CODE = 80877102;

interface BackendKey {
  host: string;
  port: number;
  processID: number;
  secretKey: number;
}

/** What `pg` knows of a client's server and backend, read off the client. */
function backendKey(client: PoolClient): BackendKey {
  const known = client as unknown as BackendKey;
  return { host: known.host, port: known.port, processID: known.processID, secretKey: known.secretKey };
}

/**
 * Asks PostgreSQL to cancel what the client's backend is running, on a connection of
 * its own (the protocol's cancel): it needs no pooled connection, so it works with the
 * pool exhausted. The server answers nothing; the cancelled statement fails with 57014.
 */
export function cancelBackend(client: PoolClient): Promise<void> {
  const key = backendKey(client);
  return new Promise((resolve, reject) => {
    const socket: Socket = key.host.startsWith('/') ? connect(`${key.host}/.s.PGSQL.${key.port}`) : connect(key.port, key.host);
    socket.setTimeout(5_000, () => socket.destroy(new Error('the cancel request found no server within 5 s')));
    socket.once('connect', () => {
      const message = Buffer.alloc(16);
      message.writeInt32BE(16, 0);
      message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      message.writeInt32BE(key.processID, 8);
      message.writeInt32BE(key.secretKey, 12);
      socket.end(message);
    });
    socket.once('close', () => resolve());
    socket.once('error', reject);
  });
}

/** Ends the client's backend from a fresh connection: for a statement that did not heed its cancel. */
export async function terminateBackend(connectionString: string, client: PoolClient): Promise<void> {
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [backendKey(client).processID]);
  } finally {
    await admin.end();
  }
}
