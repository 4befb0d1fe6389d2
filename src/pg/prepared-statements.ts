import pg, { type QueryResult, type QueryResultRow } from 'pg';
import type { PoolClient } from './pool.js';
import { quoteIdent } from './quote.js';

/**
 * How many named statements one connection keeps prepared. LIMIT and OFFSET are literals
 * (ARCHITECTURE decision 5), so each distinct value is a statement of its own, and the
 * server keeps every prepared statement's parse tree and cached plan for the session's
 * life (a generated statement's plan weighs tens of KB to a few MB). 500 holds the hot
 * statements of every role and document (the plan cache keeps 16 shapes per document),
 * while bounding a pooled backend's memory whatever values clients send.
 */
export const STATEMENTS_PER_CONNECTION = 500;

export interface NamedStatement {
  name: string;
  text: string;
  values: unknown[];
}

/** node-postgres' record of what it has parsed on a connection: a name it holds is never parsed again. */
interface ParsingConnection {
  parsedStatements: Record<string, string>;
}

/**
 * The statements prepared on each connection, least recently used first (a Map keeps its
 * insertion order; a use deletes and re-inserts). Keyed by node-postgres' connection, which
 * the tracing proxy hands through as it is and which goes when its client is discarded.
 */
const preparedOn = new WeakMap<ParsingConnection, Map<string, true>>();

/**
 * Runs a named statement on `client`, deallocating the least recently used ones first when
 * preparing it would exceed `capacity` on that connection. A statement that is already
 * prepared costs no extra round trip; an eviction costs one, for a tenth of the capacity at
 * once, so a stream of new statements pays it once per tenth.
 */
export async function queryNamed<R extends QueryResultRow>(client: PoolClient, statement: NamedStatement, capacity = STATEMENTS_PER_CONNECTION): Promise<QueryResult<R>> {
  const connection = (client as unknown as { connection: ParsingConnection }).connection;
  let prepared = preparedOn.get(connection);
  if (prepared === undefined) preparedOn.set(connection, (prepared = new Map()));
  const known = prepared.delete(statement.name);
  if (!known && prepared.size >= capacity) await evict(client, connection, prepared, Math.max(1, Math.ceil(capacity / 10)));
  try {
    return await submitNamed<R>(client, statement);
  } finally {
    // A statement that failed to parse is not prepared; one that failed when executed is.
    if (connection.parsedStatements[statement.name] !== undefined) prepared.set(statement.name, true);
  }
}

/**
 * Submits the statement as a query object built from its text. Given a config object,
 * node-postgres copies it property descriptor by property descriptor, which cost about a
 * tenth of the engine's CPU per request by primary key (test/bench/profile.ts); a text is
 * taken as it is.
 */
function submitNamed<R extends QueryResultRow>(client: PoolClient, statement: NamedStatement): Promise<QueryResult<R>> {
  return new Promise<QueryResult<R>>((resolve, reject) => {
    const query = new pg.Query<R>(statement.text, statement.values, (error, result) => (error === undefined || error === null ? resolve(result) : reject(error)));
    (query as unknown as { name: string }).name = statement.name;
    client.query(query);
  }).catch((error: unknown) => {
    // As node-postgres' own promise does: the stack then leads to the caller, not to the socket.
    if (error instanceof Error) Error.captureStackTrace(error);
    throw error;
  });
}

/**
 * Drops every statement prepared on the client's connection, and node-postgres' and this
 * module's record of them, after SQL the engine did not write ran there: a `DEALLOCATE ALL`
 * in it would leave node-postgres binding names the server no longer has (26000). Not
 * transactional: it holds whatever the transaction does next.
 */
export async function forgetPreparedStatements(client: PoolClient): Promise<void> {
  const connection = (client as unknown as { connection: ParsingConnection }).connection;
  await client.query('deallocate all');
  connection.parsedStatements = {};
  preparedOn.delete(connection);
  preparedBySqlOn.delete(connection);
}

/** The statements prepared by SQL (`prepareBySqlOnce`) on each connection. */
const preparedBySqlOn = new WeakMap<ParsingConnection, Set<string>>();

/**
 * Prepares `text` as `name` by SQL on the client's connection, unless it already is, for an
 * `execute` in a batch of statements sent in one round trip (the simple protocol, where a
 * named statement of the protocol cannot go). forgetPreparedStatements forgets it with the rest.
 */
export async function prepareBySqlOnce(client: PoolClient, name: string, text: string): Promise<void> {
  const connection = (client as unknown as { connection: ParsingConnection }).connection;
  if (preparedBySqlOn.get(connection)?.has(name) === true) return;
  await client.query(`prepare ${quoteIdent(name)} as ${text}`);
  let names = preparedBySqlOn.get(connection);
  if (names === undefined) preparedBySqlOn.set(connection, (names = new Set()));
  names.add(name);
}

async function evict(client: PoolClient, connection: ParsingConnection, prepared: Map<string, true>, count: number): Promise<void> {
  const oldest: string[] = [];
  for (const name of prepared.keys()) {
    if (oldest.length === count) break;
    oldest.push(name);
  }
  // Prepared statements are not transactional: this holds inside a mutation's transaction too.
  await client.query(oldest.map((name) => `deallocate ${quoteIdent(name)}`).join('; '));
  for (const name of oldest) {
    prepared.delete(name);
    // node-postgres would otherwise bind to the deallocated name instead of parsing it again.
    delete connection.parsedStatements[name];
  }
}
