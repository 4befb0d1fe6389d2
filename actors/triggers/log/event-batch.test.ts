import { headers as natsHeaders } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { headersWith } from '../../../src/bus/wire.js';
import { encodeBatch, loggedEvents, MalformedEventMessageError } from './event-batch.js';
import { jsonArrayBytes } from './json-array.js';
import { encodeEvent, EVENT_HEADER, eventHeaders, manualEventId, webhookBody } from './event-message.js';

function event(name: string) {
  const id = manualEventId();
  return { id, ...encodeEvent({ id, trigger: 't', table: { schema: 'public', name: 'job' }, op: 'INSERT', oldJson: 'null', newJson: JSON.stringify({ name }), sessionJson: 'null', createdAt: '2026-11-28T06:00:00.000000' }) };
}

describe('event batches', () => {
  it('hold each event whole: read back by id, split and body, the body one JSON array', () => {
    const events = ['a', 'ü "quoted"', 'x'.repeat(3000)].map(event);
    const { body, layout } = encodeBatch(events);
    expect(body.length).toBe(jsonArrayBytes(events.reduce((sum, e) => sum + e.body.length, 0), events.length));
    expect((JSON.parse(body.toString()) as { id: string }[]).map((stored) => stored.id)).toEqual(events.map((e) => e.id));
    const read = loggedEvents(body, headersWith({ [EVENT_HEADER.batch]: layout }));
    expect(read.map((e) => e.id)).toEqual(events.map((e) => e.id));
    for (const [index, e] of read.entries()) {
      expect(Buffer.from(e.body).equals(events[index]!.body)).toBe(true);
      expect(e.split).toBe(events[index]!.split);
      expect(JSON.parse(webhookBody(e.body, e.split, 0, 0).toString()).delivery_info).toEqual({ max_retries: 0, current_retry: 0 });
    }
  });

  it('read a single event by its headers', () => {
    const one = event('solo');
    expect(loggedEvents(one.body, eventHeaders(one.id, one.split))).toEqual([{ id: one.id, body: one.body, split: one.split }]);
  });

  it('refuse a message whose headers do not describe its body', () => {
    const events = ['a', 'b'].map(event);
    const { body, layout } = encodeBatch(events);
    const [first, second] = layout.split(',') as [string, string];
    const cases: [Uint8Array, Record<string, string>][] = [
      [body, { [EVENT_HEADER.batch]: first }],
      [body, { [EVENT_HEADER.batch]: `${layout},${second}` }],
      [body, { [EVENT_HEADER.batch]: `${first},9999999:40` }],
      [body, { [EVENT_HEADER.batch]: `${first},x:y` }],
      [body, { [EVENT_HEADER.batch]: `${first},${second.split(':')[0]}:5` }],
      [body, { [EVENT_HEADER.batch]: `${layout},` }],
      [body, { [EVENT_HEADER.batch]: `${first},,${second}` }],
      [body, { [EVENT_HEADER.batch]: `${first},${second}:1` }],
      [body, { [EVENT_HEADER.batch]: `${first};${second}` }],
      [events[0]!.body, {}],
      [events[0]!.body, { [EVENT_HEADER.id]: events[0]!.id }],
      [events[0]!.body, { [EVENT_HEADER.id]: events[0]!.id, [EVENT_HEADER.split]: String(events[0]!.body.length) }],
    ];
    for (const [data, headers] of cases) expect(() => loggedEvents(data, headersWith(headers)), JSON.stringify(headers)).toThrow(MalformedEventMessageError);
    expect(() => loggedEvents(body, natsHeaders())).toThrow(MalformedEventMessageError);
  });
});
