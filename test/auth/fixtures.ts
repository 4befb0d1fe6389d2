import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSecretKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT, type JWK, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import type { Session } from '../../src/session/session.js';
import type { HttpResult, TestEngine } from '../harness/engine.js';

export const ADMIN_SECRET = 'auth-suite-admin-secret';
export const NAMESPACE = 'https://service.io/jwt/claims';
export const HS_SECRET = 'a-shared-secret-of-at-least-32-characters!';
export const TYPENAME = { query: '{ __typename }' };

export function serviceClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { 'x-service-allowed-roles': ['user', 'editor'], 'x-service-default-role': 'user', 'x-service-user-id': '42', ...overrides };
}

export interface SignOptions {
  alg?: string;
  kid?: string;
  /** Seconds from now; `null` leaves `exp` out. */
  expiresIn?: number | null;
  notBefore?: number;
  issuedAt?: number;
}

/** A compact JWS over `payload`, `exp` one hour ahead unless told otherwise. */
export async function sign(payload: JWTPayload, key: KeyObject | Uint8Array, options: SignOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(payload).setProtectedHeader({ alg: options.alg ?? 'HS256', ...(options.kid === undefined ? {} : { kid: options.kid }) });
  jwt.setIssuedAt(options.issuedAt ?? now);
  if (options.expiresIn !== null) jwt.setExpirationTime(now + (options.expiresIn ?? 3600));
  if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
  return jwt.sign(key);
}

export const hsKey = (secret = HS_SECRET): KeyObject => createSecretKey(Buffer.from(secret, 'utf8'));

export interface RsaPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
  publicPem: string;
  jwk(kid: string): JWK;
}

export function rsaPair(): RsaPair {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicKey,
    privateKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    jwk: (kid) => ({ ...(publicKey.export({ format: 'jwk' }) as JWK), kid, alg: 'RS256', use: 'sig' }),
  };
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Asserts that the request is refused on /v1/graphql (200, no data) and on /v1/query (status), both with `code`. */
export async function expectRefused(engine: TestEngine, headers: Record<string, string>, code: string, status: number): Promise<{ graphql: HttpResult; query: HttpResult }> {
  const graphql = await engine.graphql(TYPENAME, headers);
  expect(graphql.status).toBe(200);
  expect(graphql.json.data).toBeUndefined();
  expect(graphql.json.errors).toHaveLength(1);
  expect(graphql.json.errors[0].extensions).toEqual({ path: '$', code });
  const query = await engine.query({ type: 'export_metadata', args: {} }, headers);
  expect(query.status).toBe(status);
  expect(query.json).toMatchObject({ path: '$', code });
  expect(query.json.version).toBeUndefined();
  return { graphql, query };
}

/** Asserts that the request is served on /v1/graphql. */
export async function expectServed(engine: TestEngine, headers: Record<string, string>): Promise<void> {
  const graphql = await engine.graphql(TYPENAME, headers);
  expect(graphql.json).toEqual({ data: { __typename: 'query_root' } });
}

/** The session the engine's auth actor resolves for `headers`, over the bus. */
export function resolveSession(engine: TestEngine, headers: Record<string, string>): Promise<Session> {
  return engine.engine.bus.request<Session>(engine.engine.bus.subjects.authResolve, { headers }, { requestId: 't', timeoutMs: 5000 });
}

/** Resolves with the error a bus request fails with. */
export async function resolveError(engine: TestEngine, headers: Record<string, string>): Promise<{ code: string; message: string; status: number }> {
  try {
    const session = await resolveSession(engine, headers);
    throw new Error(`expected an auth error, got the session ${JSON.stringify(session)}`);
  } catch (error) {
    return error as { code: string; message: string; status: number };
  }
}

export interface TestHttpServer {
  url: string;
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  /** Stops listening and drops open keep-alive connections: the server is down. */
  close(): Promise<void>;
}

export async function startHttpServer(handle: (request: IncomingMessage, body: string, response: ServerResponse) => void): Promise<TestHttpServer> {
  const requests: TestHttpServer['requests'] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handle(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        closed = true;
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A JWKS endpoint whose keys and cache headers the test sets; `fetches` counts its answers. */
export interface JwksServer extends TestHttpServer {
  keys: JWK[];
  headers: Record<string, string>;
  status: number;
  readonly fetches: number;
}

export async function startJwksServer(keys: JWK[], headers: Record<string, string> = {}): Promise<JwksServer> {
  const state = { keys, headers, status: 200 };
  const server = await startHttpServer((_request, _body, response) => {
    response.writeHead(state.status, { 'content-type': 'application/json', ...state.headers });
    response.end(JSON.stringify({ keys: state.keys }));
  });
  return {
    url: server.url,
    requests: server.requests,
    close: server.close,
    get keys() {
      return state.keys;
    },
    set keys(value: JWK[]) {
      state.keys = value;
    },
    get headers() {
      return state.headers;
    },
    set headers(value: Record<string, string>) {
      state.headers = value;
    },
    get status() {
      return state.status;
    },
    set status(value: number) {
      state.status = value;
    },
    get fetches() {
      return server.requests.length;
    },
  };
}

export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
