import { createServer } from 'node:http';
import { createPool } from '../../../src/pg/pool.js';
import { QUERIES, SQL_PARAMS } from '../queries.js';

/**
 * The limit: a minimal Node HTTP server that answers each benchmarked query with its
 * hand-written single SQL statement (a named prepared statement), splicing the JSON
 * text Postgres built into `{"data":...}` without parsing it. No GraphQL at all.
 * Usage: tsx handwritten.ts <database url> <port>; POST /<query index>.
 */
const [databaseUrl, port] = process.argv.slice(2);
const pool = createPool(databaseUrl!, { max: 20, applicationName: 'bench-handwritten' });

createServer((request, response) => {
  const index = Number((request.url ?? '/').slice(1));
  const query = QUERIES[index];
  request.resume();
  request.on('end', () => {
    if (query === undefined) {
      response.writeHead(404).end();
      return;
    }
    pool.query<{ data: string }>({ name: `q${index}`, text: query.sql, values: SQL_PARAMS[index] }).then(
      (result) => {
        const body = `{"data":${result.rows[0]!.data}}`;
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        response.end(body);
      },
      (error: Error) => response.writeHead(500).end(error.message),
    );
  });
}).listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
