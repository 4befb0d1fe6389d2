import { createServer } from 'node:http';
import { createPool } from '../../../src/pg/pool.js';
import { QUERIES, SQL_PARAMS } from '../queries.js';

/**
 * The limit: a minimal Node HTTP server that answers each benchmarked query with its
 * hand-written single SQL statement (a named prepared statement), splicing the JSON
 * text Postgres built into `{"data":...}` without parsing it. No GraphQL at all.
 * Usage: tsx handwritten.ts <database url> <port>; POST /<query index>, or
 * /<query index>/parameterized for the query's statement with every value a parameter.
 */
const [databaseUrl, port] = process.argv.slice(2);
const pool = createPool(databaseUrl!, { max: 20, applicationName: 'bench-handwritten' });

createServer((request, response) => {
  const [indexText, variant] = (request.url ?? '/').slice(1).split('/');
  const index = Number(indexText);
  const query = QUERIES[index];
  const statement = variant === 'parameterized' ? query?.parameterized : query === undefined || variant !== undefined ? undefined : { sql: query.sql, params: SQL_PARAMS[index]! };
  request.resume();
  request.on('end', () => {
    if (statement === undefined) {
      response.writeHead(404).end();
      return;
    }
    pool.query<{ data: string }>({ name: `q${index}${variant ?? ''}`, text: statement.sql, values: statement.params }).then(
      (result) => {
        const body = `{"data":${result.rows[0]!.data}}`;
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        response.end(body);
      },
      (error: Error) => response.writeHead(500).end(error.message),
    );
  });
}).listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
