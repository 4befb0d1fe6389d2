import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { http, startTestEngine, type TestEngine } from '../harness/engine.js';
import { eventually, startWebhook, stopAll, trackTables, type Webhook } from '../triggers/fixtures.js';
import { modernClient } from '../subscriptions/clients.js';
import { parseSamples, sampleValue, type Sample } from './prometheus-text.js';

const ADMIN = 'metrics-admin-secret';
const METRICS_SECRET = 'scrape-me';
const admin = { 'x-service-admin-secret': ADMIN };
const asUser = { ...admin, 'x-service-role': 'user' };

let db: TestDatabase;
let engine: TestEngine;
let hook: Webhook;

async function scrape(): Promise<Sample[]> {
  const answer = await http('GET', `${engine.url}/v1/metrics`, undefined, { authorization: `Bearer ${METRICS_SECRET}` });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseSamples(answer.text);
}

const counter = (samples: Sample[], name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels) ?? 0;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table item (id int primary key, name text not null)');
  await db.sql(`insert into item values (1, 'one')`);
  await db.sql('create table job (id serial primary key, name text)');
  // The webhook fails the first attempt of every event, then succeeds: one retry per event.
  hook = await startWebhook((request) => {
    const attempts = hook.received.filter((received) => received.body?.id === request.body?.id).length;
    return attempts === 1 ? { status: 500, body: '{"try":"again"}' } : { status: 200, body: '{"ok":true}' };
  });
  engine = await startTestEngine({
    databaseUrl: db.url,
    env: { SERVICE_GRAPHQL_ADMIN_SECRET: ADMIN, SERVICE_GRAPHQL_ENABLED_APIS: 'metadata,graphql,config,metrics', SERVICE_GRAPHQL_METRICS_SECRET: METRICS_SECRET, SERVICE_GRAPHQL_HEARTBEAT_MS: '300' },
  });
  await trackTables(engine, ['item', 'job']);
  const permission = await engine.query({ type: 'create_select_permission', args: { table: 'item', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } });
  expect(permission.json).toEqual({ message: 'success' });
  const limits = await engine.query({ type: 'set_api_limits', args: { rate_limit: { global: { max_reqs_per_min: 100000, unique_params: 'IP' }, per_role: { user: { max_reqs_per_min: 2, unique_params: 'IP' } } } } });
  expect(limits.json).toEqual({ message: 'success' });
  const trigger = await engine.query({
    type: 'create_event_trigger',
    args: { name: 'job_created', table: 'job', webhook: hook.url, insert: { columns: '*' }, retry_conf: { num_retries: 2, interval_sec: 1, timeout_sec: 2 } },
  });
  expect(trigger.json).toEqual({ message: 'success' });
}, 90_000);

afterAll(async () => {
  await stopAll({ engine, hook, db });
});

describe('GET /v1/metrics', () => {
  it('refuses a scrape without the metrics secret, or with another, with 401 and an error body', async () => {
    const missing = await http('GET', `${engine.url}/v1/metrics`, undefined, {});
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ code: 'access-denied', error: expect.stringContaining('Authorization: Bearer') });
    const wrong = await http('GET', `${engine.url}/v1/metrics`, undefined, { authorization: 'Bearer not-it' });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ code: 'access-denied' });
    // The admin secret is no metrics secret.
    const adminOnly = await http('GET', `${engine.url}/v1/metrics`, undefined, { ...admin, authorization: `Bearer ${ADMIN}` });
    expect(adminOnly.status).toBe(401);
  });

  it('counts GraphQL requests by operation type and response status, and times the successful ones', async () => {
    const before = await scrape();
    const query = await engine.graphql({ query: 'query One { item_by_pk(id: 1) { name } }' });
    expect(query.json).toEqual({ data: { item_by_pk: { name: 'one' } } });
    const mutation = await engine.graphql({ query: 'mutation { insert_item_one(object: {id: 2, name: "two"}) { id } }' });
    expect(mutation.json).toEqual({ data: { insert_item_one: { id: 2 } } });
    // A primary key violation: an error answer, so a failed mutation.
    const violation = await engine.graphql({ query: 'mutation { insert_item_one(object: {id: 2, name: "again"}) { id } }' });
    expect(violation.json.errors[0].extensions.code).toBe('constraint-violation');
    const invalid = await engine.graphql({ query: '{ no_such_field }' });
    expect(invalid.json.errors).toHaveLength(1);
    const after = await scrape();

    const moved = (labels: Record<string, string>) => counter(after, 'service_graphql_requests_total', labels) - counter(before, 'service_graphql_requests_total', labels);
    expect(moved({ operation_type: 'query', response_status: 'success' })).toBe(1);
    // A document validation refuses ran no operation: its type is unknown, as the executor never read one.
    expect(moved({ operation_type: 'unknown', response_status: 'failed' })).toBe(1);
    expect(moved({ operation_type: 'mutation', response_status: 'success' })).toBe(1);
    expect(moved({ operation_type: 'mutation', response_status: 'failed' })).toBe(1);
    const timed = (samples: Sample[], type: string) => counter(samples, 'service_graphql_execution_time_seconds_count', { operation_type: type });
    expect(timed(after, 'query') - timed(before, 'query')).toBe(1);
    expect(timed(after, 'mutation') - timed(before, 'mutation')).toBe(1);
    expect(sampleValue(after, 'service_graphql_execution_time_seconds_bucket', { operation_type: 'query', le: '+Inf' })).toBe(timed(after, 'query'));

    const plans = (samples: Sample[], status: string) => counter(samples, 'service_plan_cache_requests_total', { status });
    await engine.graphql({ query: 'query One { item_by_pk(id: 1) { name } }' });
    const again = await scrape();
    expect(plans(again, 'hit') - plans(after, 'hit')).toBe(1);
    expect(plans(again, 'miss') - plans(after, 'miss')).toBe(0);
    expect(plans(after, 'miss') - plans(before, 'miss')).toBe(4);
  });

  it('counts the requests a rate limit refuses', async () => {
    const before = counter(await scrape(), 'service_graphql_rate_limit_refusals_total');
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await engine.graphql({ query: '{ item_by_pk(id: 1) { name } }' }, asUser));
    const refused = answers.filter((answer) => answer.json.errors?.[0]?.extensions?.code === 'rate-limit-exceeded').length;
    expect(refused).toBeGreaterThanOrEqual(2);
    expect(counter(await scrape(), 'service_graphql_rate_limit_refusals_total') - before).toBe(refused);
  });

  it('counts an event fetched twice, one failed call then a delivery, and times the webhook', async () => {
    await db.sql(`insert into job (name) values ('metered')`);
    await hook.waitFor(2, 20_000, (request) => request.body?.event?.data?.new?.name === 'metered');
    const trigger = { trigger_name: 'job_created' };
    const samples = await eventually(async () => {
      const read = await scrape();
      return counter(read, 'service_event_processed_total', { ...trigger, status: 'success' }) === 1 ? read : undefined;
    }, 10_000, 'the delivery counted');
    expect(counter(samples, 'service_event_invocations_total', { ...trigger, status: 'failed' })).toBe(1);
    expect(counter(samples, 'service_event_invocations_total', { ...trigger, status: 'success' })).toBe(1);
    expect(counter(samples, 'service_event_processed_total', { ...trigger, status: 'failed' })).toBe(0);
    expect(counter(samples, 'service_event_fetched_total')).toBe(2);
    expect(counter(samples, 'service_event_webhook_processing_time_seconds_count')).toBe(2);
    // The retry waited interval_sec in the log: its queue time is at least that.
    expect(counter(samples, 'service_event_queue_time_seconds_count')).toBe(2);
    expect(counter(samples, 'service_event_queue_time_seconds_bucket', { le: '0.1' })).toBeLessThanOrEqual(1);
  });

  it('reads the gauges of the actors of its process when scraped', async () => {
    const samples = await scrape();
    expect(sampleValue(samples, 'service_http_connections')).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'service_websocket_connections')).toBe(0);
    const version = (await engine.query({ type: 'export_metadata', version: 2, args: {} })).json.resource_version;
    expect(sampleValue(samples, 'service_schema_cache_metadata_resource_version')).toBe(version);
    expect(sampleValue(samples, 'service_postgres_connections', { actor: 'schema', state: 'in_use' })).toBeGreaterThanOrEqual(0);
    expect(sampleValue(samples, 'service_postgres_connections', { actor: 'schema', state: 'waiting' })).toBe(0);
    expect(sampleValue(samples, 'service_actor_requests_handled', { actor: 'schema', outcome: 'ok' })).toBeGreaterThan(0);
    expect(sampleValue(samples, 'service_nats_round_trip_seconds')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'service_replication_slot_lag_bytes')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(samples, 'service_replication_slot_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts WebSocket connections and active subscriptions by mode', async () => {
    const socket = modernClient(engine.url, admin);
    try {
      const watch = socket.subscribe('subscription { item(order_by: {id: asc}) { id } }');
      expect((await watch.waitFor(1))[0]).toEqual({ data: { item: [{ id: 1 }, { id: 2 }] } });
      const samples = await scrape();
      expect(sampleValue(samples, 'service_websocket_connections')).toBe(1);
      expect(sampleValue(samples, 'service_http_connections')).toBeGreaterThanOrEqual(1);
      const byMode = ['change-driven', 'polling'].map((mode) => counter(samples, 'service_active_subscriptions', { mode }));
      expect(byMode[0]! + byMode[1]!).toBe(1);
      expect(counter(samples, 'service_subscription_pollers', { mode: 'change-driven' }) + counter(samples, 'service_subscription_pollers', { mode: 'polling' })).toBe(1);
      watch.stop();
    } finally {
      await socket.close();
    }
    const after = await eventually(async () => {
      const read = await scrape();
      return sampleValue(read, 'service_websocket_connections') === 0 ? read : undefined;
    }, 5_000, 'the socket closed');
    expect(counter(after, 'service_active_subscriptions', { mode: 'change-driven' }) + counter(after, 'service_active_subscriptions', { mode: 'polling' })).toBe(0);
  });

  it('is reported by the config API', async () => {
    const config = await engine.get('/v1alpha1/config');
    expect(config.json.is_prometheus_metrics_enabled).toBe(true);
  });
});

describe('the metrics API disabled', () => {
  it('serves no /v1/metrics and says so in the config API', async () => {
    const plain = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: ADMIN, SERVICE_GRAPHQL_METRICS_SECRET: METRICS_SECRET } });
    try {
      const scraped = await http('GET', `${plain.url}/v1/metrics`, undefined, { authorization: `Bearer ${METRICS_SECRET}` });
      expect(scraped.status).toBe(404);
      expect((await plain.get('/v1alpha1/config')).json.is_prometheus_metrics_enabled).toBe(false);
    } finally {
      await plain.stop();
    }
  }, 60_000);
});
