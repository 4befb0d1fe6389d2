import { describe, expect, it } from 'vitest';
import { InvocationLog, type AttemptArgs } from '../../actors/triggers/delivery/invocation.js';
import { BatchedSends } from '../../actors/triggers/send-soon.js';
import type { Trigger } from '../../actors/triggers/trigger-set.js';

/** The invocation log's writer, against a stand-in for JetStream that keeps what it was given. */
function writer(maxBody: number, fail: (subject: string) => boolean = () => false) {
  const appended: { subject: string; body: string }[] = [];
  const log = new InvocationLog({
    maxBody,
    sends: new BatchedSends(),
    append: async (subject: string, body: Uint8Array) => {
      if (fail(subject)) throw new Error('refused');
      appended.push({ subject, body: Buffer.from(body).toString('utf8') });
    },
  });
  return { log, appended };
}

const trigger = { name: 'job_created', headers: [{ name: 'x-key', value: 'secret', logged: { name: 'x-key', value_from_env: 'KEY' } }] } as unknown as Trigger;

function attempt(eventId: string, payloadBytes = 20): AttemptArgs {
  return {
    trigger,
    eventId,
    body: Buffer.from(JSON.stringify({ id: eventId, pad: 'x'.repeat(payloadBytes) })),
    result: { success: true, status: 200, response: { type: 'webhook_response', data: { body: '{}', headers: [], status: 200 }, version: '2' }, retryAfter: null, ms: 1 },
    outcome: 'delivered',
    retryInMs: null,
  };
}

/** Every record of the stored messages, in order: a message is one record or an array of them. */
const records = (appended: { body: string }[]) => appended.flatMap(({ body }) => [JSON.parse(body)].flat());

describe('invocation log writer', () => {
  it('stores the records held together for one trigger as one array, a lone record as itself', async () => {
    const { log, appended } = writer(1_000_000);
    await Promise.all([log.record('inv.a', attempt('e1')), log.record('inv.a', attempt('e2')), log.record('inv.b', attempt('e3')), log.record('inv.a', attempt('e4'))]);
    expect(appended.map(({ subject }) => subject)).toEqual(['inv.a', 'inv.b']);
    expect(JSON.parse(appended[0]!.body).map((record: any) => record.event_id)).toEqual(['e1', 'e2', 'e4']);
    expect(JSON.parse(appended[1]!.body)).toMatchObject({
      trigger_name: 'job_created',
      event_id: 'e3',
      status: 200,
      request: { payload: { id: 'e3' }, headers: [{ name: 'x-key', value_from_env: 'KEY' }], version: '2' },
      response: { type: 'webhook_response', data: { body: '{}', headers: [], status: 200 }, version: '2' },
      outcome: 'delivered',
      next_retry_at: null,
    });
    await log.record('inv.a', attempt('e5'));
    expect(appended).toHaveLength(3);
    expect(new Set(records(appended).map((record) => record.id)).size).toBe(5);
  });

  it('cuts the records held together into messages that fit the NATS payload limit', async () => {
    const maxBody = 2_000;
    const { log, appended } = writer(maxBody);
    const ids = Array.from({ length: 20 }, (_, i) => `e${i}`);
    await Promise.all(ids.map((id) => log.record('inv.a', attempt(id, 300))));
    expect(appended.length).toBeGreaterThan(1);
    for (const { body } of appended) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(maxBody);
    expect(records(appended).map((record) => record.event_id)).toEqual(ids);
  });

  it('fails the records of a message JetStream did not store, and only those', async () => {
    const { log } = writer(1_000_000, (subject) => subject === 'inv.down');
    const outcomes = await Promise.allSettled([log.record('inv.down', attempt('e1')), log.record('inv.up', attempt('e2')), log.record('inv.down', attempt('e3'))]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'rejected']);
  });
});
