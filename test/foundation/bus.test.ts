import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Bus, JsonReply } from '../../src/bus/bus.js';
import { ensureKv, ensureStream } from '../../src/bus/jetstream.js';
import { decodeText, encodeJson, encodeText } from '../../src/bus/wire.js';
import { errors } from '../../src/errors/errors.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { createLogger } from '../../src/log/logger.js';
import { testPrefix } from '../harness/engine.js';

const log = createLogger('silent');
let bus: Bus;

beforeAll(async () => {
  bus = await Bus.connect({ servers: inject('natsUrl'), prefix: testPrefix(), name: 'bus-test', log });
});

afterAll(async () => {
  await bus.close();
});

const options = { requestId: 'r1', timeoutMs: 5000 };

describe('request/reply on the bus', () => {
  it('returns the bytes the handler answered, with its facts', async () => {
    const subject = `${bus.subjects.prefix}.echo`;
    const sub = bus.serve(subject, async (request) => ({ body: encodeText(`${request.requestId}:${decodeText(request.data)}`), meta: { role: 'user' } }), { queue: 'q' });
    await bus.flush();
    const reply = await bus.ask(subject, encodeText('hello'), options);
    expect(decodeText(reply.body)).toBe('r1:hello');
    expect(reply.meta).toEqual({ role: 'user' });
    sub.unsubscribe();
  });

  it('reassembles a reply larger than the server max_payload, byte for byte', async () => {
    const subject = `${bus.subjects.prefix}.big`;
    const size = bus.maxPayload * 3 + 12345;
    const big = new Uint8Array(size).map((_, i) => (i * 31) % 251);
    const sub = bus.serve(subject, async () => big, { queue: 'q' });
    await bus.flush();
    const reply = await bus.ask(subject, encodeText(''), options);
    expect(reply.body.length).toBe(size);
    expect(Buffer.compare(Buffer.from(reply.body), Buffer.from(big))).toBe(0);
    sub.unsubscribe();
  });

  it('turns a thrown ServiceError into an error reply and keeps serving', async () => {
    const subject = `${bus.subjects.prefix}.fails`;
    let calls = 0;
    const sub = bus.serve(subject, async () => {
      calls++;
      if (calls === 1) throw errors.notExists('$.args.table', 'table "x" does not exist');
      if (calls === 2) throw new Error('a bug');
      return encodeJson({ ok: true });
    }, { queue: 'q' });
    await bus.flush();
    const first = await bus.ask(subject, encodeText(''), options).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(ServiceError);
    expect((first as ServiceError).toJSON()).toEqual({ code: 'not-exists', status: 400, error: 'table "x" does not exist', path: '$.args.table' });
    const second = await bus.ask(subject, encodeText(''), options).catch((error: unknown) => error);
    expect((second as ServiceError).code).toBe('unexpected');
    expect((second as ServiceError).status).toBe(500);
    const third = await bus.request<{ ok: boolean }>(subject, {}, options);
    expect(third).toEqual({ ok: true });
    sub.unsubscribe();
  });

  it('answers 503 at once when nobody serves the subject', async () => {
    const started = Date.now();
    const error = await bus.ask(`${bus.subjects.prefix}.nobody`, encodeText(''), options).catch((e: unknown) => e);
    expect((error as ServiceError).code).toBe('unavailable');
    expect((error as ServiceError).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('answers 503 when the responder does not reply in time', async () => {
    const subject = `${bus.subjects.prefix}.slow`;
    const sub = bus.serve(subject, () => new Promise(() => undefined), { queue: 'q' });
    await bus.flush();
    const error = await bus.ask(subject, encodeText(''), { requestId: 'r', timeoutMs: 200 }).catch((e: unknown) => e);
    expect((error as ServiceError).status).toBe(503);
    expect((error as ServiceError).message).toMatch(/within 200 ms/);
    sub.unsubscribe();
  });

  it('load-balances a queue group: each request reaches one instance', async () => {
    const subject = `${bus.subjects.prefix}.balanced`;
    const seen: string[] = [];
    const subs = ['a', 'b'].map((name) => bus.serve(subject, async () => (seen.push(name), encodeText(name)), { queue: 'q' }));
    await bus.flush();
    for (let i = 0; i < 20; i++) await bus.ask(subject, encodeText(''), options);
    expect(seen).toHaveLength(20);
    subs.forEach((sub) => sub.unsubscribe());
  });

  it('gathers one reply per instance for broadcast requests', async () => {
    const subject = `${bus.subjects.prefix}.everyone`;
    const subs = ['a', 'b', 'c'].map((name) => bus.serve(subject, async () => encodeJson({ name })));
    await bus.flush();
    const replies = await bus.gather<{ name: string }>(subject, {}, 300);
    expect(replies.map((reply) => reply.name).sort()).toEqual(['a', 'b', 'c']);
    subs.forEach((sub) => sub.unsubscribe());
  });
});

describe('local delivery', () => {
  it('answers a request for a subject this process serves without the NATS server, errors included', async () => {
    const local = await Bus.connect({ servers: inject('natsUrl'), prefix: testPrefix(), name: 'bus-local', log, localDelivery: true });
    const subject = `${local.subjects.prefix}.here`;
    let calls = 0;
    const done: boolean[] = [];
    let seen: unknown;
    const served = local.serve(subject, async (request) => {
      calls++;
      seen = request.json();
      if (seen === 'fail') throw errors.notExists('$.x', 'nothing here');
      return { body: encodeText(`local:${request.requestId}`), meta: { role: 'r' } };
    }, { queue: 'q', onDone: (_ms, failed) => done.push(failed) });
    // A closed connection proves the server is not used.
    await local.close();

    const sent = { nested: { list: [1, 2] } };
    const reply = await local.ask(subject, sent, options);
    expect(decodeText(reply.body)).toBe('local:r1');
    expect(reply.meta).toEqual({ role: 'r' });
    // A value travels as it is: the handler sees the very object, no JSON round trip.
    expect(seen).toBe(sent);

    const error = await local.ask(subject, 'fail', options).catch((e: unknown) => e);
    expect((error as ServiceError).code).toBe('not-exists');
    expect(calls).toBe(2);
    expect(done).toEqual([false, true]);
    served.unsubscribe();
  });

  it('answers 503 when a local handler does not reply in time, as a NATS responder would', async () => {
    const local = await Bus.connect({ servers: inject('natsUrl'), prefix: testPrefix(), name: 'bus-local-slow', log, localDelivery: true });
    const subject = `${local.subjects.prefix}.slow`;
    const served = local.serve(subject, () => new Promise(() => undefined), { queue: 'q' });
    await local.close();
    const started = Date.now();
    const error = await local.ask(subject, 'anything', { requestId: 'r', timeoutMs: 200 }).catch((e: unknown) => e);
    expect((error as ServiceError).status).toBe(503);
    expect((error as ServiceError).message).toMatch(/within 200 ms/);
    expect(Date.now() - started).toBeLessThan(1500);
    served.unsubscribe();
  });

  it('hands the message and the reply value over frozen, so neither side can change what the other holds', async () => {
    const local = await Bus.connect({ servers: inject('natsUrl'), prefix: testPrefix(), name: 'bus-frozen', log, localDelivery: true });
    const subject = `${local.subjects.prefix}.frozen`;
    const kept = { counts: [1, 2] };
    const served = local.serve(subject, async (request) => {
      const message = request.json<{ nested: { list: number[] }; mutate: boolean }>();
      // A receiver that changes its message throws here, as it would change the sender's object.
      if (message.mutate) message.nested.list.push(3);
      return new JsonReply(kept);
    }, { queue: 'q' });
    await local.close();

    const sent = { nested: { list: [1, 2] }, mutate: false };
    const reply = await local.request<{ counts: number[] }>(subject, sent, options);
    expect(Object.isFrozen(sent.nested.list)).toBe(true);
    expect(() => reply.counts.push(3)).toThrow(TypeError);
    expect(kept.counts).toEqual([1, 2]);

    const refused = await local.ask(subject, { nested: { list: [1] }, mutate: true }, options).catch((e: unknown) => e);
    expect((refused as ServiceError).code).toBe('unexpected');
    served.unsubscribe();
  });
});

describe('JetStream set-up', () => {
  it('creates a stream and a KV bucket idempotently', async () => {
    const name = `${bus.subjects.prefix.toUpperCase()}_EVENTS`;
    const spec = { name, subjects: [`${bus.subjects.prefix}.events.>`], max_age: 0 };
    const [a, b] = await Promise.all([ensureStream(bus.connection, spec), ensureStream(bus.connection, spec)]);
    expect(a.config.name).toBe(name);
    expect(b.config.subjects).toEqual(spec.subjects);
    const again = await ensureStream(bus.connection, { ...spec, description: 'events to deliver' });
    expect(again.config.description).toBe('events to deliver');

    const kv = await ensureKv(bus.connection, `${bus.subjects.prefix}_leases`);
    await kv.put('slot', 'instance-1');
    const reopened = await ensureKv(bus.connection, `${bus.subjects.prefix}_leases`);
    expect((await reopened.get('slot'))?.string()).toBe('instance-1');

    const { jetstreamManager } = await import('@nats-io/jetstream');
    const jsm = await jetstreamManager(bus.connection);
    await jsm.streams.delete(name);
    await jsm.streams.delete(`KV_${bus.subjects.prefix}_leases`);
  });
});
