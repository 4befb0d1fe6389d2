import { createServer } from 'node:http';
import { Pool } from 'undici';

/**
 * The floor of a hop: a minimal Node HTTP server that forwards each POST body to one
 * GraphQL server over kept-alive undici connections, as the engine does, and answers with
 * the bytes it got back. No GraphQL, no session, no bus. What it adds to a direct request
 * is what any forwarding process adds on the machine; the engine's added latency beyond it
 * is the engine's own. It imports undici from the engine's own dependencies, not the peers':
 * the same client, at the same version, as the engine forwards with.
 * Usage: tsx forwarding-proxy.ts <remote url> <port>.
 */
const [remoteUrl, port] = process.argv.slice(2);
const remote = new URL(remoteUrl!);
const upstream = new Pool(remote.origin, { connections: 256 });

createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    upstream
      .request({ path: remote.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
      .then(async (answer) => {
        const body = Buffer.from(await answer.body.arrayBuffer());
        response.writeHead(answer.statusCode, { 'content-type': 'application/json', 'content-length': body.length });
        response.end(body);
      })
      .catch((error: unknown) => {
        response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(String(error));
      });
  });
}).listen(Number(port), '127.0.0.1', () => process.stdout.write(`listening on ${port}\n`));
