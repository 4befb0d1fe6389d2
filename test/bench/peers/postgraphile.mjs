// PostGraphile v5, the benchmark peer, as its docs set it up for production: the Amber
// preset, no GraphiQL, no watch, pg-aggregates for the aggregate query, the connection
// filter plugin for the list's range condition (the Amber preset's `condition` has only equality). Runs under the
// Node >= 22 of the `node` dev dependency. Usage: node postgraphile.mjs <database url> <port>
import { createServer } from 'node:http';
import { postgraphile } from 'postgraphile';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PgAggregatesPreset } from '@graphile/pg-aggregates';
import { PostGraphileConnectionFilterPreset } from 'postgraphile-plugin-connection-filter';

const [connectionString, port] = process.argv.slice(2);
const preset = {
  extends: [PostGraphileAmberPreset, PgAggregatesPreset, PostGraphileConnectionFilterPreset],
  pgServices: [makePgService({ connectionString, schemas: ['public'], poolConfig: { max: 20 } })],
  grafserv: { graphiql: false, watch: false },
  grafast: { explain: false },
};
const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.on('error', (error) => {
  process.stderr.write(`${error}\n`);
  process.exit(1);
});
serv.addTo(server).then(() => server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n')));
