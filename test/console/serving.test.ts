import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitServerSentEvents } from '../../src/console/src/api/server-sent-events.js';
import type { Heartbeat } from '../../src/monitor/messages.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { http, startTestEngine, type TestEngine } from '../harness/engine.js';
import { ensureConsoleBuilt } from './build.js';

const SECRET = 'console-secret';
let db: TestDatabase;
let enabled: TestEngine;
let disabled: TestEngine;
let devMode: TestEngine;

beforeAll(async () => {
  await ensureConsoleBuilt();
  db = await createTestDatabase();
  enabled = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_ENABLE_CONSOLE: 'true', SERVICE_GRAPHQL_HEARTBEAT_MS: '300', SERVICE_GRAPHQL_ACTORS: 'edge,auth,schema' } });
  disabled = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_ACTORS: 'edge,auth,schema' } });
  devMode = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ACTORS: 'edge,auth,schema' } });
}, 600_000);

afterAll(async () => {
  await Promise.all([enabled?.stop(), disabled?.stop(), devMode?.stop()]);
  await db?.drop();
});

/** A GET whose path is sent exactly as written (fetch would normalize `..` away). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('the console\'s files', () => {
  it('serves index.html for /console and its pages, never cached, with a strict CSP', async () => {
    for (const path of ['/console', '/console/', '/console/data/public/author', '/console/cluster']) {
      const page = await http('GET', `${enabled.url}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(page.text).toContain('<div id="root"></div>');
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
    }
  });

  it('serves the hashed assets for a year, immutable, gzip-compressed when asked', async () => {
    const index = await http('GET', `${enabled.url}/console/`);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(index.text)?.[1];
    expect(script).toBeDefined();
    const asset = await rawGet(enabled.url, script!, { 'accept-encoding': 'gzip' });
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['content-encoding']).toBe('gzip');
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    expect((await http('GET', `${enabled.url}/console/assets/missing-abc123.js`)).status).toBe(404);
  });

  it('refuses paths that climb out of the build (404), however they are spelled', async () => {
    for (const path of ['/console/../package.json', '/console/assets/../../src/main.js', '/console/%2e%2e/package.json', '/console/assets/%2e%2e%2f%2e%2e%2fpackage.json', '/console/..%5c..%5cpackage.json', '/console/%00', '/console/%E0%A4%A']) {
      const answer = await rawGet(enabled.url, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).not.toContain('service-graphql-engine');
    }
  });

  it('redirects / to the console when it is enabled', async () => {
    const root = await rawGet(enabled.url, '/');
    expect(root.status).toBe(302);
    expect(root.headers.location).toBe('/console/');
  });

  it('answers 404 for /console and / when disabled (the default with an admin secret)', async () => {
    for (const path of ['/', '/console', '/console/assets/x.js']) {
      const answer = await http('GET', `${disabled.url}${path}`);
      expect(answer.status, path).toBe(404);
      expect(answer.json).toMatchObject({ code: 'not-found' });
    }
  });

  it('is on by default in development mode (no admin secret)', async () => {
    expect((await http('GET', `${devMode.url}/console/`)).status).toBe(200);
  });

  it('leaves the API routes as they were', async () => {
    expect((await enabled.get('/v1/version')).status).toBe(200);
    expect((await http('POST', `${enabled.url}/console`, {})).status).toBe(404);
  });
});

/** Reads server-sent events from the monitor stream until `enough` says so, then aborts. */
async function readStream(url: string, headers: Record<string, string>, enough: (events: { event: string; data: any }[]) => boolean): Promise<{ event: string; data: any }[]> {
  const abort = new AbortController();
  const response = await fetch(`${url}/v1/monitor/stream`, { headers, signal: abort.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const events: { event: string; data: any }[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = response.body!.getReader();
  const deadline = setTimeout(() => abort.abort(), 15_000);
  try {
    while (!enough(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      const split = splitServerSentEvents(buffer + decoder.decode(value, { stream: true }));
      buffer = split.rest;
      events.push(...split.events.map(({ event, data }) => ({ event, data: JSON.parse(data) })));
    }
  } finally {
    clearTimeout(deadline);
    abort.abort();
  }
  return events;
}

/** The edge's latest heartbeat, straight from the monitor ping. */
async function edgeGauge(engine: TestEngine, gauge: string): Promise<unknown> {
  const beats = await engine.engine.bus.gather<Heartbeat>(engine.engine.bus.subjects.monitorPing, {}, 300);
  return beats.find((beat) => beat.actor === 'edge' && beat.instance === engine.engine.instance)?.gauges[gauge];
}

describe('GET /v1/monitor/stream', () => {
  it('relays every actor instance\'s heartbeats to an admin as server-sent events', async () => {
    const events = await readStream(enabled.url, { 'x-service-admin-secret': SECRET }, (seen) => new Set(seen.filter((e) => e.event === 'heartbeat').map((e) => e.data.actor)).size >= 3);
    const actors = new Set(events.filter((e) => e.event === 'heartbeat').map((e) => e.data.actor));
    expect(actors).toEqual(new Set(['edge', 'auth', 'schema']));
    const beat = events.find((e) => e.event === 'heartbeat')!.data;
    expect(beat).toMatchObject({ instance: expect.any(String), latency_ms: expect.any(Object), gauges: expect.any(Object) });
  });

  it('refuses a wrong admin secret and a non-admin role with access-denied', async () => {
    const wrong = await http('GET', `${enabled.url}/v1/monitor/stream`, undefined, { 'x-service-admin-secret': 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ code: 'access-denied' });
    const user = await http('GET', `${enabled.url}/v1/monitor/stream`, undefined, { 'x-service-admin-secret': SECRET, 'x-service-role': 'user' });
    expect(user.status).toBe(400);
    expect(user.json).toEqual({ path: '$', error: 'restricted access : admin only', code: 'access-denied' });
    const none = await http('GET', `${enabled.url}/v1/monitor/stream`);
    expect(none.status).toBe(401);
  });

  it('closes its NATS subscriptions when the client goes away', async () => {
    expect(await edgeGauge(enabled, 'monitor_streams')).toBe(0);
    const abort = new AbortController();
    const response = await fetch(`${enabled.url}/v1/monitor/stream`, { headers: { 'x-service-admin-secret': SECRET }, signal: abort.signal });
    expect(response.status).toBe(200);
    const subscriptions = () => (enabled.engine.bus.connection as unknown as { protocol: { subscriptions: { size(): number } } }).protocol.subscriptions.size();
    await expect.poll(() => edgeGauge(enabled, 'monitor_streams'), { timeout: 5_000 }).toBe(1);
    const open = subscriptions();
    abort.abort();
    await expect.poll(() => edgeGauge(enabled, 'monitor_streams'), { timeout: 5_000 }).toBe(0);
    expect(subscriptions()).toBe(open - 2);
  });
});
