import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { brotliCompressSync, deflateRawSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, HttpRequestError, HttpTimeoutError } from '../../src/http/undici-client.js';

/** A server whose behaviour each test picks by path. */
let server: Server;
let base: string;
const client = new HttpClient({ maxSockets: 4 });
let resetsLeft = 0;
const seen: { method: string; headers: IncomingMessage['headers']; body: string }[] = [];
const sockets = new Set<Socket>();

function handle(request: IncomingMessage, response: ServerResponse, body: string): void {
  seen.push({ method: request.method ?? '', headers: request.headers, body });
  switch (request.url) {
    case '/echo':
      response.writeHead(201, { 'content-type': 'application/json', 'x-one': 'a', 'set-cookie': ['a=1', 'b=2'] }).end(JSON.stringify({ body }));
      return;
    case '/gzip':
      response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('zipped'));
      return;
    case '/br':
      response.writeHead(200, { 'content-encoding': 'br' }).end(brotliCompressSync('brotli'));
      return;
    case '/raw-deflate':
      response.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateRawSync('raw deflate'));
      return;
    case '/gzip-bomb':
      // 1 MiB of zeros: a few KB on the wire.
      response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(1024 * 1024)));
      return;
    case '/endless': {
      response.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const timer = setInterval(() => response.write(chunk), 1);
      response.on('close', () => clearInterval(timer));
      return;
    }
    case '/bad-gzip':
      response.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip at all');
      return;
    case '/redirect':
      response.writeHead(302, { location: '/echo' }).end();
      return;
    case '/repeated':
      response.writeHead(200, [['X-Two', 'a'], ['X-Two', 'b'], ['Set-Cookie', 'c=1']]).end();
      return;
    case '/slow-body':
      response.writeHead(200, { 'content-length': '4' });
      response.write('la');
      setTimeout(() => response.end('te'), 2_000).unref();
      return;
    case '/slow':
      setTimeout(() => response.end('late'), 2_000).unref();
      return;
    case '/reset':
      if (resetsLeft > 0) {
        resetsLeft--;
        request.socket.destroy();
        return;
      }
      response.end('after reset');
      return;
    case '/half':
      response.writeHead(200, { 'content-length': '100' });
      response.write('only part');
      setTimeout(() => request.socket.destroy(), 20);
      return;
    default:
      response.writeHead(404).end('no such path');
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString()));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  client.close();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('HttpClient', () => {
  it('posts a body and returns status, headers and the body as bytes', async () => {
    const response = await client.post(`${base}/echo`, { body: '{"x":1}', headers: { 'content-type': 'application/json' }, timeoutMs: 5_000 });
    expect(response.status).toBe(201);
    expect(response.headers['x-one']).toBe('a');
    expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(JSON.parse(response.body.toString())).toEqual({ body: '{"x":1}' });
    const request = seen.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.headers['content-length']).toBe('7');
    expect(request.headers['content-type']).toBe('application/json');
  });

  it("sends a URL's user and password as Basic credentials, unless the call has its own", async () => {
    const withCredentials = base.replace('http://', 'http://us%40er:p%3Ass@');
    await client.post(`${withCredentials}/echo`, { body: '', timeoutMs: 5_000 });
    expect(seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
    await client.post(`${withCredentials}/echo`, { body: '', headers: { Authorization: 'Bearer own' }, timeoutMs: 5_000 });
    expect(seen.at(-1)!.headers.authorization).toBe('Bearer own');
  });

  it("refuses a header Node's http refuses, in its words, and keeps serving the server afterwards", async () => {
    const small = new HttpClient({ maxSockets: 1 });
    try {
      const refused: Record<string, string>[] = [{ 'x-bad': 'a\nb' }, { 'bad name': 'v' }, { 'x-bad': 'line\r\nbreak' }];
      for (const headers of refused) {
        await expect(small.post(`${base}/echo`, { body: '', headers, timeoutMs: 1_000 })).rejects.toMatchObject({ name: 'HttpRequestError', code: expect.stringMatching(/^ERR_INVALID_(CHAR|HTTP_TOKEN)$/) });
      }
      expect((await small.post(`${base}/echo`, { body: 'after', timeoutMs: 1_000 })).status).toBe(201);
    } finally {
      small.close();
    }
  });

  it('leaves the connection headers to the client', async () => {
    const response = await client.post(`${base}/echo`, { body: 'framed', headers: { 'transfer-encoding': 'chunked', 'content-length': '99', upgrade: 'h2c', connection: 'upgrade', expect: '100-continue' }, timeoutMs: 5_000 });
    expect(JSON.parse(response.body.toString())).toEqual({ body: 'framed' });
    expect(seen.at(-1)!.headers).toMatchObject({ 'content-length': '6', connection: 'keep-alive' });
    expect(seen.at(-1)!.headers.upgrade).toBeUndefined();
  });

  it('refuses an answer larger than its limit, compressed or not, and keeps serving', async () => {
    const capped = new HttpClient({ maxSockets: 1, maxResponseBytes: 256 * 1024 });
    try {
      await expect(capped.post(`${base}/gzip-bomb`, { body: '', timeoutMs: 5_000 })).rejects.toMatchObject({ name: 'HttpRequestError', code: 'ERR_RESPONSE_TOO_LARGE' });
      await expect(capped.post(`${base}/endless`, { body: '', timeoutMs: 5_000 })).rejects.toMatchObject({ name: 'HttpRequestError', code: 'ERR_RESPONSE_TOO_LARGE' });
      expect((await capped.post(`${base}/gzip`, { body: '', timeoutMs: 5_000 })).body.toString()).toBe('zipped');
    } finally {
      capped.close();
    }
  });

  it('sends bytes as they are', async () => {
    await client.post(`${base}/echo`, { body: new TextEncoder().encode('bytes'), timeoutMs: 5_000 });
    expect(seen.at(-1)!.body).toBe('bytes');
  });

  it('reuses keep-alive sockets', async () => {
    const before = seen.length;
    for (let i = 0; i < 5; i++) await client.post(`${base}/echo`, { body: String(i), timeoutMs: 5_000 });
    const connectionHeaders = new Set(seen.slice(before).map((request) => request.headers.connection));
    expect(connectionHeaders).toEqual(new Set(['keep-alive']));
    expect(sockets.size).toBeLessThanOrEqual(4);
  });

  it('decompresses gzip, brotli and raw deflate bodies', async () => {
    expect((await client.post(`${base}/gzip`, { body: '', timeoutMs: 5_000 })).body.toString()).toBe('zipped');
    expect((await client.post(`${base}/br`, { body: '', timeoutMs: 5_000 })).body.toString()).toBe('brotli');
    expect((await client.post(`${base}/raw-deflate`, { body: '', timeoutMs: 5_000 })).body.toString()).toBe('raw deflate');
  });

  it('refuses a body that does not decompress', async () => {
    await expect(client.post(`${base}/bad-gzip`, { body: '', timeoutMs: 5_000 })).rejects.toMatchObject({ name: 'HttpRequestError', code: 'ERR_CONTENT_DECODING' });
  });

  it('returns a redirect as it is, without following it', async () => {
    const response = await client.post(`${base}/redirect`, { body: '{}', timeoutMs: 5_000 });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/echo');
  });

  it('keeps the headers as written beside names lowercased, repeated ones joined', async () => {
    const response = await client.post(`${base}/repeated`, { body: '', timeoutMs: 5_000 });
    expect(response.rawHeaders).toEqual(expect.arrayContaining(['X-Two', 'a', 'X-Two', 'b', 'Set-Cookie', 'c=1']));
    expect(response.headers['x-two']).toBe('a, b');
    expect(response.headers['set-cookie']).toEqual(['c=1']);
  });

  it('counts the time limit over the whole call, the body included', async () => {
    const started = performance.now();
    await expect(client.post(`${base}/slow-body`, { body: '', timeoutMs: 200 })).rejects.toBeInstanceOf(HttpTimeoutError);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('gives up after the timeout', async () => {
    const started = performance.now();
    const error = await client.post(`${base}/slow`, { body: '', timeoutMs: 150 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HttpTimeoutError);
    expect((error as HttpTimeoutError).timeoutMs).toBe(150);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('names a refused connection, a bad URL and an unsupported protocol', async () => {
    const refused = await client.post('http://127.0.0.1:1/', { body: '', timeoutMs: 5_000 }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(HttpRequestError);
    expect((refused as HttpRequestError).code).toBe('ECONNREFUSED');
    await expect(client.post('not a url', { body: '', timeoutMs: 5_000 })).rejects.toMatchObject({ code: 'ERR_INVALID_URL' });
    await expect(client.post('ftp://127.0.0.1/x', { body: '', timeoutMs: 5_000 })).rejects.toMatchObject({ code: 'ERR_UNSUPPORTED_PROTOCOL' });
  });

  it('does not retry a reset connection', async () => {
    resetsLeft = 1;
    await expect(client.post(`${base}/reset`, { body: 'x', timeoutMs: 5_000 })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect((await client.post(`${base}/reset`, { body: 'x', timeoutMs: 5_000 })).body.toString()).toBe('after reset');
  });

  it('refuses a response cut off in the middle of its body', async () => {
    await expect(client.post(`${base}/half`, { body: '', timeoutMs: 5_000 })).rejects.toBeInstanceOf(HttpRequestError);
  });
});
