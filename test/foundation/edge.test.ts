import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { http, startTestEngine, type TestEngine } from '../harness/engine.js';

const SECRET = 'edge-test-secret';
let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_MAX_REQUEST_BODY_BYTES: '4096' } });
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

const admin = { 'x-service-admin-secret': SECRET };

describe('HTTP edge: routes', () => {
  it('serves /healthz as plain OK', async () => {
    const result = await engine.get('/healthz', {});
    expect(result.status).toBe(200);
    expect(result.text).toBe('OK');
    expect(result.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('serves /v1/version', async () => {
    const result = await engine.get('/v1/version', {});
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ version: 'v0.1.0', server_type: 'ce' });
  });

  it('answers an unknown route with 404 not-found', async () => {
    for (const method of ['GET', 'POST']) {
      const result = await http(method, `${engine.url}/v1/nothing`, method === 'POST' ? {} : undefined, admin);
      expect(result.status).toBe(404);
      expect(result.json).toEqual({ path: '$', error: 'resource does not exist', code: 'not-found' });
    }
  });

  it('answers a known route with the wrong method with 405', async () => {
    const result = await http('PUT', `${engine.url}/v1/query`, {}, admin);
    expect(result.status).toBe(405);
    expect(result.json.code).toBe('method-not-allowed');
  });

  it('answers GET /v1/graphql with not-supported in the GraphQL envelope, HTTP 200', async () => {
    const result = await engine.get('/v1/graphql', admin);
    expect(result.status).toBe(200);
    expect(result.json.errors[0].extensions.code).toBe('not-supported');
  });

  it('echoes x-request-id on success and leaves it off errors', async () => {
    const ok = await engine.query({ type: 'export_metadata', args: {} }, { ...admin, 'x-request-id': 'abc-123' });
    expect(ok.headers.get('x-request-id')).toBe('abc-123');
    const failed = await engine.query({ type: 'nope', args: {} }, admin);
    expect(failed.headers.get('x-request-id')).toBeNull();
  });

  it('compresses a large response when the client accepts gzip', async () => {
    const { request } = await import('node:http');
    const { gunzipSync } = await import('node:zlib');
    const body = JSON.stringify({ type: 'bulk', args: Array.from({ length: 60 }, () => ({ type: 'export_metadata', args: {} })) });
    const raw = await new Promise<{ encoding: string | undefined; bytes: Buffer }>((resolve, reject) => {
      const req = request(`${engine.url}/v1/query`, { method: 'POST', headers: { ...admin, 'accept-encoding': 'gzip', 'content-type': 'application/json' } }, (res) => {
        const pieces: Buffer[] = [];
        res.on('data', (piece: Buffer) => pieces.push(piece));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], bytes: Buffer.concat(pieces) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(raw.encoding).toBe('gzip');
    expect(JSON.parse(gunzipSync(raw.bytes).toString())).toHaveLength(60);
  });
});

describe('HTTP edge: bad input on /v1/query', () => {
  it('refuses malformed JSON with 400 invalid-json', async () => {
    const result = await engine.query('{"type": ', admin);
    expect(result.status).toBe(400);
    expect(result.json.code).toBe('invalid-json');
    expect(result.json.path).toBe('$');
  });

  it('refuses JSON of the wrong shape with 400 parse-failed and the path', async () => {
    const missingType = await engine.query({ args: {} }, admin);
    expect(missingType.status).toBe(400);
    expect(missingType.json).toEqual({ path: '$', error: 'key "type" not found', code: 'parse-failed' });

    const notAnObject = await engine.query([1, 2], admin);
    expect(notAnObject.status).toBe(400);
    expect(notAnObject.json.code).toBe('parse-failed');

    const badArgs = await engine.query({ type: 'replace_metadata', args: { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: 'x' }] }] } }, admin);
    expect(badArgs.status).toBe(400);
    expect(badArgs.json).toEqual({ path: '$.args.sources[0].tables[0].table', error: 'expected Object, but encountered String', code: 'parse-failed' });
  });

  it('refuses an unknown operation type with 400 naming it', async () => {
    const result = await engine.query({ type: 'track_everything', args: {} }, admin);
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path: '$.type', error: 'unknown operation type: "track_everything"', code: 'parse-failed' });
  });

  it('refuses a body over the size limit with 413', async () => {
    const result = await engine.query({ type: 'export_metadata', args: {}, padding: 'x'.repeat(5000) }, admin);
    expect(result.status).toBe(413);
    expect(result.json.code).toBe('bad-request');
  });
});

describe('admin secret', () => {
  it('refuses /v1/query without the secret: 401 access-denied', async () => {
    const result = await engine.query({ type: 'export_metadata', args: {} }, {});
    expect(result.status).toBe(401);
    expect(result.json).toEqual({ path: '$', error: 'x-service-admin-secret/x-service-access-key required, but not found', code: 'access-denied' });
  });

  it('refuses a wrong secret: 401 access-denied', async () => {
    const result = await engine.query({ type: 'export_metadata', args: {} }, { 'x-service-admin-secret': `${SECRET}x` });
    expect(result.status).toBe(401);
    expect(result.json).toEqual({ path: '$', error: 'invalid x-service-admin-secret/x-service-access-key', code: 'access-denied' });
  });

  it('accepts the deprecated x-service-access-key header', async () => {
    const result = await engine.query({ type: 'export_metadata', args: {} }, { 'x-service-access-key': SECRET });
    expect(result.status).toBe(200);
  });

  it('refuses metadata operations to a non-admin role: 400 access-denied at $.args', async () => {
    const result = await engine.query({ type: 'export_metadata', args: {} }, { ...admin, 'x-service-role': 'user' });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path: '$.args', error: 'restricted access : admin only', code: 'access-denied' });
  });

  it('returns auth errors on /v1/graphql in the GraphQL envelope with HTTP 200', async () => {
    const result = await engine.graphql({ query: '{ __typename }' }, { 'x-service-admin-secret': 'wrong' });
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ errors: [{ message: 'invalid x-service-admin-secret/x-service-access-key', extensions: { path: '$', code: 'access-denied' } }] });
  });
});

describe('config API', () => {
  it('returns every field of the server config object with the right types', async () => {
    const result = await engine.get('/v1alpha1/config', admin);
    expect(result.status).toBe(200);
    const config = result.json;
    expect(typeof config.version).toBe('string');
    expect(config.is_admin_secret_set).toBe(true);
    expect(config.is_auth_hook_set).toBe(false);
    expect(config.is_jwt_set).toBe(false);
    expect(config.is_allow_list_enabled).toBe(false);
    expect(config.live_queries).toEqual({ batch_size: 100, refetch_delay: 1 });
    expect(config.jwt).toBeUndefined();
  });

  it('is refused without the secret (401) and to a non-admin role (400)', async () => {
    expect((await engine.get('/v1alpha1/config', {})).status).toBe(401);
    const asUser = await engine.get('/v1alpha1/config', { ...admin, 'x-service-role': 'user' });
    expect(asUser.status).toBe(400);
    expect(asUser.json).toEqual({ path: '$', error: 'restricted access : admin only', code: 'access-denied' });
  });
});

describe('enabled APIs', () => {
  it('answers 404 for an API left out of SERVICE_GRAPHQL_ENABLED_APIS', async () => {
    const graphqlOnly = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_ENABLED_APIS: 'graphql' } });
    try {
      const query = await graphqlOnly.query({ type: 'export_metadata', args: {} });
      expect(query.status).toBe(404);
      expect(query.json).toEqual({ path: '$', error: 'resource does not exist', code: 'not-found' });
      expect((await graphqlOnly.get('/v1alpha1/config')).status).toBe(404);
      expect((await graphqlOnly.graphql({ query: '{ __typename }' })).json).toEqual({ data: { __typename: 'query_root' } });
    } finally {
      await graphqlOnly.stop();
    }
  });
});
