import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSuite } from './engines.js';
import { ADMIN_SECRET, expectRefused, expectServed, resolveSession, startHttpServer, type TestHttpServer } from './fixtures.js';

const suite = authSuite();

/** The webhook's answer for a request, chosen by the token the client sent. */
function answer(authorization: string | undefined, response: ServerResponse): void {
  const json = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  switch (authorization) {
    case 'Bearer good':
      return json(200, { 'X-Service-Role': 'user', 'X-Service-User-Id': '25', 'X-Service-Is-Owner': 'true', Other: 'dropped' });
    case 'Bearer deny':
      return json(401, { error: 'nope' });
    case 'Bearer boom':
      return json(500, { error: 'crashed' });
    case 'Bearer not-json':
      return json(200, 'this is not JSON');
    case 'Bearer no-role':
      return json(200, { 'X-Service-User-Id': '25' });
    case 'Bearer number':
      return json(200, { 'X-Service-Role': 'user', 'X-Service-User-Id': 25 });
    default:
      return json(403, {});
  }
}

let hook: TestHttpServer;
let downHook: TestHttpServer;
beforeAll(async () => {
  hook = await startHttpServer((request, body, response) => {
    const authorization = request.method === 'POST' ? (JSON.parse(body) as { headers: Record<string, string> }).headers.authorization : request.headers.authorization;
    answer(authorization, response);
  });
  downHook = await startHttpServer((_request, _body, response) => response.end());
  await downHook.close();
});
afterAll(async () => {
  await hook.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'x-custom': 'kept' });

describe.each(['GET', 'POST'] as const)('auth webhook in %s mode', (mode) => {
  const engine = suite.engineWith(() => ({ SERVICE_GRAPHQL_AUTH_HOOK: `${hook.url}/${mode.toLowerCase()}-hook`, SERVICE_GRAPHQL_AUTH_HOOK_MODE: mode }));

  it('runs the request with the session the webhook answers', async () => {
    expect(await resolveSession(engine(), bearer('good'))).toEqual({
      role: 'user',
      variables: { 'x-service-role': 'user', 'x-service-user-id': '25', 'x-service-is-owner': 'true' },
    });
    await expectServed(engine(), bearer('good'));
  });

  it(`calls the webhook with ${mode === 'GET' ? "the client's headers, without the content headers" : '{headers, request} as JSON'}`, async () => {
    const before = hook.requests.length;
    await resolveSession(engine(), { ...bearer('good'), 'content-type': 'application/json', 'content-length': '17', accept: 'text/html', connection: 'keep-alive' });
    const call = hook.requests[before]!;
    expect(call.method).toBe(mode);
    expect(call.url).toBe(`/${mode.toLowerCase()}-hook`);
    expect(call.headers['user-agent']).toMatch(/^service-graphql-engine\/v/);
    if (mode === 'GET') {
      expect(call.headers).toMatchObject({ authorization: 'Bearer good', 'x-custom': 'kept' });
      expect(call.headers.accept).not.toBe('text/html');
      expect(call.headers['content-type']).toBeUndefined();
      expect(call.body).toBe('');
    } else {
      expect(call.headers['content-type']).toBe('application/json');
      const sent = JSON.parse(call.body) as { headers: Record<string, string>; request: unknown };
      expect(sent.headers).toMatchObject({ authorization: 'Bearer good', 'x-custom': 'kept', 'content-type': 'application/json' });
      expect(sent.request).toBeNull();
    }
  });

  it('refuses the request when the webhook answers 401', async () => {
    const { query } = await expectRefused(engine(), bearer('deny'), 'access-denied', 401);
    expect(query.json.error).toBe('Authentication hook unauthorized this request');
  });

  it('fails the request with a server error when the webhook answers another status', async () => {
    const { query } = await expectRefused(engine(), bearer('boom'), 'unexpected', 500);
    expect(query.json.error).toBe('Invalid response from authorization hook');
    await expectRefused(engine(), bearer('unknown'), 'unexpected', 500);
  });

  it('fails the request when the webhook answers 200 with something other than a JSON object of strings', async () => {
    const { query } = await expectRefused(engine(), bearer('not-json'), 'unexpected', 500);
    expect(query.json.error).toMatch(/^Invalid response from authorization hook: /);
    await expectRefused(engine(), bearer('number'), 'unexpected', 500);
  });

  it('refuses a webhook answer without X-Service-Role', async () => {
    const { query } = await expectRefused(engine(), bearer('no-role'), 'invalid-params', 400);
    expect(query.json.error).toBe('x-service-role not found in session variables');
  });

  it('does not call the webhook when the admin secret is sent; a wrong one is refused', async () => {
    const before = hook.requests.length;
    expect((await resolveSession(engine(), { ...bearer('deny'), 'x-service-admin-secret': ADMIN_SECRET })).role).toBe('admin');
    await expectRefused(engine(), { ...bearer('good'), 'x-service-admin-secret': 'wrong' }, 'access-denied', 401);
    expect(hook.requests.length).toBe(before);
  });

  it('reports the webhook in the config API', async () => {
    expect((await engine().get('/v1alpha1/config')).json).toMatchObject({ is_admin_secret_set: true, is_auth_hook_set: true, is_jwt_set: false });
  });
});

describe('auth webhook that cannot be reached', () => {
  const engine = suite.engineWith(() => ({ SERVICE_GRAPHQL_AUTH_HOOK: `${downHook.url}/hook` }));

  it('fails the request with a server error', async () => {
    const { query } = await expectRefused(engine(), bearer('good'), 'unexpected', 500);
    expect(query.json.error).toBe('webhook authentication request failed');
  });
});
