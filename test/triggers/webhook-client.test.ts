import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookClient } from '../../actors/triggers/delivery/webhook.js';
import type { Trigger } from '../../actors/triggers/trigger-set.js';

/** The webhook client alone against a local server whose behaviour each test picks by path. */
let server: Server;
let base: string;
const client = new WebhookClient(4);
const trigger = { name: 't', headers: [{ name: 'X-Key', value: 'k' }], retry: { timeout_sec: 1 } } as unknown as Trigger;
const seen: IncomingMessage['headers'][] = [];
const connections = new Set<Socket>();
let opened = 0;
let resetsLeft = 0;

function handle(request: IncomingMessage, response: ServerResponse): void {
  seen.push(request.headers);
  switch (request.url) {
    case '/ok':
      response.writeHead(200, [['X-Mixed-Case', 'a'], ['content-type', 'text/plain']]).end('fine');
      return;
    case '/gzip':
      response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('zipped answer'));
      return;
    case '/redirect':
      response.writeHead(307, { location: '/ok' }).end('moved');
      return;
    case '/busy':
      response.writeHead(503, { 'retry-after': '7' }).end('busy');
      return;
    case '/slow':
      setTimeout(() => response.end('late'), 3_000).unref();
      return;
    case '/reset':
      if (resetsLeft-- > 0) request.socket.destroy();
      else response.end('after reset');
      return;
    default:
      response.writeHead(404).end('no such path');
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => handle(request, response));
  });
  server.on('connection', (socket: Socket) => {
    opened++;
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

beforeEach(() => {
  resetsLeft = 0;
});

afterAll(async () => {
  client.close();
  for (const socket of connections) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const body = Buffer.from('{"event":1}');

describe('WebhookClient', () => {
  it('sends the trigger headers and the defaults, and logs the answer with its headers as the server wrote them', async () => {
    const result = await client.post(trigger, `${base}/ok`, body);
    expect(result).toMatchObject({ success: true, status: 200, retryAfter: null });
    expect(result.response).toEqual({
      type: 'webhook_response',
      data: { body: 'fine', headers: expect.arrayContaining([{ name: 'X-Mixed-Case', value: 'a' }, { name: 'content-type', value: 'text/plain' }]), status: 200 },
      version: '2',
    });
    expect(seen.at(-1)).toMatchObject({ 'x-key': 'k', 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br', 'content-length': String(body.length) });
  });

  it('reuses one keep-alive connection for calls one after another', async () => {
    const before = opened;
    for (let i = 0; i < 5; i++) expect((await client.post(trigger, `${base}/ok`, body)).success).toBe(true);
    expect(opened - before).toBeLessThanOrEqual(1);
  });

  it('logs a gzip answer decompressed', async () => {
    const result = await client.post(trigger, `${base}/gzip`, body);
    expect((result.response as { data: { body: string } }).data.body).toBe('zipped answer');
  });

  it('does not follow a redirect: the 3xx is a failed attempt with its body', async () => {
    const before = seen.length;
    const result = await client.post(trigger, `${base}/redirect`, body);
    expect(result).toMatchObject({ success: false, status: 307, response: { type: 'client_error', data: { message: 'moved' }, version: '2' } });
    expect(seen.length - before).toBe(1);
  });

  it('reads a positive integer Retry-After', async () => {
    expect(await client.post(trigger, `${base}/busy`, body)).toMatchObject({ success: false, status: 503, retryAfter: 7 });
  });

  it('cuts a call at timeout_sec and logs it as a 500 timeout', async () => {
    const result = await client.post(trigger, `${base}/slow`, body);
    expect(result).toMatchObject({ success: false, status: 500, response: { type: 'client_error', data: { message: 'request timed out after 1 s' }, version: '2' } });
    expect(result.ms).toBeLessThan(2_000);
  });

  it('tries once more at once when the connection breaks before an answer, not twice', async () => {
    resetsLeft = 1;
    expect(await client.post(trigger, `${base}/reset`, body)).toMatchObject({ success: true, status: 200 });
    resetsLeft = 2;
    expect(await client.post(trigger, `${base}/reset`, body)).toMatchObject({ success: false, status: null, response: { type: 'client_error', data: { message: 'socket hang up' }, version: '2' } });
    expect(resetsLeft).toBe(0);
  });

  it("logs a refused connection with Node's message and no status", async () => {
    const result = await client.post(trigger, 'http://127.0.0.1:1/hook', body);
    expect(result).toMatchObject({ success: false, status: null, response: { type: 'client_error', data: { message: 'connect ECONNREFUSED 127.0.0.1:1' }, version: '2' } });
  });
});
