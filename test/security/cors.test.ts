import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { HS_SECRET, hsKey, serviceClaims, sign } from '../auth/fixtures.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { http, startTestEngine, type TestEngine } from '../harness/engine.js';

const SECRET = 'cors-test-secret';
const admin = { 'x-service-admin-secret': SECRET };
const TYPENAME = { query: '{ __typename }' };
let db: TestDatabase;
const engines: TestEngine[] = [];

async function engineWith(env: Record<string, string>): Promise<TestEngine> {
  const engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, ...env } });
  engines.push(engine);
  return engine;
}

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  for (const engine of engines.splice(0)) await engine.stop();
  await db?.drop();
});

interface Handshake {
  status: number;
  body: string;
  socket?: WebSocket;
}

/** Opens a WebSocket on /v1/graphql with these handshake headers: the socket, or the refusal's status and body. */
function handshake(engine: TestEngine, headers: Record<string, string>): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${engine.url.replace(/^http/, 'ws')}/v1/graphql`, 'graphql-transport-ws', { headers });
    socket.once('open', () => resolve({ status: 101, body: '', socket }));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.once('error', reject);
  });
}

/** connection_init on an open graphql-transport-ws socket: the first frame back, or the close. */
function initialise(socket: WebSocket): Promise<{ type: string; code?: number; reason?: string }> {
  return new Promise((resolve) => {
    socket.once('message', (data) => resolve(JSON.parse(String(data)) as { type: string }));
    socket.once('close', (code, reason) => resolve({ type: 'closed', code, reason: String(reason) }));
    socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
  });
}

describe('CORS with the default domain, *', () => {
  let engine: TestEngine;
  beforeAll(async () => {
    engine = await engineWith({});
  });

  it('answers a preflight 204 with the origin echoed, the methods, the requested headers and a max age', async () => {
    const result = await http('OPTIONS', `${engine.url}/v1/graphql`, undefined, { origin: 'https://anywhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-service-role' });
    expect(result.status).toBe(204);
    expect(result.text).toBe('');
    expect(result.headers.get('access-control-allow-origin')).toBe('https://anywhere.example');
    expect(result.headers.get('access-control-allow-credentials')).toBe('true');
    expect(result.headers.get('access-control-allow-methods')).toBe('GET,POST,PUT,PATCH,DELETE,OPTIONS');
    expect(result.headers.get('access-control-allow-headers')).toBe('content-type,x-service-role');
    expect(result.headers.get('access-control-max-age')).toBe('1728000');
  });

  it('adds the CORS headers to a real request and serves it', async () => {
    const result = await engine.graphql(TYPENAME, { ...admin, origin: 'http://localhost:3000' });
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ data: { __typename: 'query_root' } });
    expect(result.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(result.headers.get('access-control-allow-credentials')).toBe('true');
    expect(result.headers.get('access-control-max-age')).toBeNull();
  });

  it('adds them to error responses too, so that a browser page can read the error', async () => {
    const result = await engine.query({ type: 'no_such_operation', args: {} }, { ...admin, origin: 'http://localhost:3000' });
    expect(result.status).toBe(400);
    expect(result.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });

  it('sends no CORS headers to a request without Origin', async () => {
    const result = await engine.graphql(TYPENAME, admin);
    expect(result.status).toBe(200);
    expect(result.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS with a list of domains', () => {
  let engine: TestEngine;
  beforeAll(async () => {
    engine = await engineWith({ SERVICE_GRAPHQL_CORS_DOMAIN: 'https://app.example.com, https://*.example.org, http://localhost:*, http://127.0.0.1:8000' });
  });

  it.each([
    ['an exact domain', 'https://app.example.com'],
    ['one subdomain of a wildcard domain', 'https://shop.example.org'],
    ['any port of a port wildcard', 'http://localhost:5173'],
    ['no port with a port wildcard', 'http://localhost'],
    ['an exact port', 'http://127.0.0.1:8000'],
  ])('serves %s (%s) with the CORS headers', async (_what, origin) => {
    const preflight = await http('OPTIONS', `${engine.url}/v1/graphql`, undefined, { origin, 'access-control-request-method': 'POST' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    const result = await engine.graphql(TYPENAME, { ...admin, origin });
    expect(result.json).toEqual({ data: { __typename: 'query_root' } });
    expect(result.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it.each([
    ['another host', 'https://evil.example.net'],
    ['the other scheme', 'http://app.example.com'],
    ['the bare domain of a wildcard', 'https://example.org'],
    ['two subdomains under a one-label wildcard', 'https://a.b.example.org'],
    ['a look-alike suffix', 'https://app.example.com.evil.net'],
    ['another port', 'http://127.0.0.1:8001'],
    ['a port where none is listed', 'https://app.example.com:8443'],
    ['the string null (sandboxed frames)', 'null'],
  ])('refuses %s (%s) on preflight, request and WebSocket, and still serves others', async (_what, origin) => {
    const preflight = await http('OPTIONS', `${engine.url}/v1/graphql`, undefined, { origin, 'access-control-request-method': 'POST' });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const result = await engine.graphql(TYPENAME, { ...admin, origin });
    expect(result.status).toBe(403);
    expect(result.json).toEqual({ path: '$', error: 'received origin header does not match configured CORS domains', code: 'access-denied' });
    expect(result.headers.get('access-control-allow-origin')).toBeNull();
    const query = await engine.query({ type: 'export_metadata', args: {} }, { ...admin, origin });
    expect(query.status).toBe(403);
    const socket = await handshake(engine, { origin });
    expect(socket.status).toBe(403);
    expect(JSON.parse(socket.body)).toEqual({ message: 'received origin header does not match configured CORS domains', extensions: { path: '$', code: 'access-denied' } });
    expect((await engine.graphql(TYPENAME, admin)).json).toEqual({ data: { __typename: 'query_root' } });
  });

  it('serves requests and WebSockets without Origin', async () => {
    expect((await engine.graphql(TYPENAME, admin)).json).toEqual({ data: { __typename: 'query_root' } });
    const socket = await handshake(engine, {});
    expect(socket.status).toBe(101);
    socket.socket!.close();
  });

  it('opens a WebSocket from a listed origin', async () => {
    const socket = await handshake(engine, { origin: 'https://shop.example.org', 'x-service-admin-secret': SECRET });
    expect(socket.status).toBe(101);
    expect(await initialise(socket.socket!)).toMatchObject({ type: 'connection_ack' });
    socket.socket!.close();
  });
});

describe('CORS disabled', () => {
  const jwt = JSON.stringify({ type: 'HS256', key: HS_SECRET, header: { type: 'Cookie', name: 'session' } });
  let disabled: TestEngine;
  let readingCookies: TestEngine;
  let cookie: string;
  beforeAll(async () => {
    disabled = await engineWith({ SERVICE_GRAPHQL_CORS_DOMAIN: 'https://app.example.com', SERVICE_GRAPHQL_DISABLE_CORS: 'true', SERVICE_GRAPHQL_JWT_SECRET: jwt });
    readingCookies = await engineWith({ SERVICE_GRAPHQL_DISABLE_CORS: 'true', SERVICE_GRAPHQL_WS_READ_COOKIE: 'true', SERVICE_GRAPHQL_JWT_SECRET: jwt });
    cookie = `session=${await sign({ 'https://service.io/jwt/claims': serviceClaims() }, hsKey())}`;
  });

  it('sends no CORS headers and checks no origin', async () => {
    const result = await disabled.graphql(TYPENAME, { ...admin, origin: 'https://evil.example.net' });
    expect(result.status).toBe(200);
    expect(result.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await http('OPTIONS', `${disabled.url}/v1/graphql`, undefined, { origin: 'https://evil.example.net' });
    expect(preflight.status).toBe(405);
  });

  it('reads the JWT cookie over HTTP', async () => {
    const result = await disabled.graphql(TYPENAME, { cookie, origin: 'https://evil.example.net' });
    expect(result.json).toEqual({ data: { __typename: 'query_root' } });
  });

  it("ignores a browser WebSocket's Cookie header", async () => {
    const socket = await handshake(disabled, { origin: 'https://evil.example.net', cookie });
    expect(socket.status).toBe(101);
    const answer = await initialise(socket.socket!);
    // Without the cookie there is no JWT: graphql-transport-ws closes 4403 (Forbidden).
    expect(answer).toEqual({ type: 'closed', code: 4403, reason: 'Forbidden' });
  });

  it('reads the Cookie header of a WebSocket without Origin', async () => {
    const socket = await handshake(disabled, { cookie });
    expect(await initialise(socket.socket!)).toMatchObject({ type: 'connection_ack' });
    socket.socket!.close();
  });

  it('reads a browser WebSocket\'s Cookie header with --ws-read-cookie', async () => {
    const socket = await handshake(readingCookies, { origin: 'https://evil.example.net', cookie });
    expect(await initialise(socket.socket!)).toMatchObject({ type: 'connection_ack' });
    socket.socket!.close();
  });
});

describe('the CORS settings', () => {
  const base = { SERVICE_GRAPHQL_NATS_URL: 'nats://127.0.0.1:4222' };
  it.each([['a domain without a scheme', 'example.com'], ['a path', 'https://example.com/app'], ['* among domains', '*, https://example.com'], ['an empty entry', 'https://a.example.com,'], ['a port out of range', 'http://localhost:70000']])(
    'refuse %s at start-up',
    (_what, value) => {
      expect(() => loadConfig(new Map(), { ...base, SERVICE_GRAPHQL_CORS_DOMAIN: value })).toThrow(ConfigError);
    },
  );

  it('take the flags as Hasura names them', () => {
    const config = loadConfig(new Map([['corsDomain', 'https://*.example.com'], ['disableCors', 'true'], ['wsReadCookie', 'true']]), base);
    expect(config.corsDomain).toEqual([{ scheme: 'https', host: 'example.com', subdomainWildcard: true, port: undefined }]);
    expect(config.disableCors).toBe(true);
    expect(config.wsReadCookie).toBe(true);
  });
});
