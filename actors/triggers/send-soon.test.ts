import { describe, expect, it } from 'vitest';
import { BatchedSends, HELD_MAX, HOLD_MS } from './send-soon.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('BatchedSends', () => {
  it('runs the sends of one turn together and in order, before the next turn, and goes on doing so', async () => {
    const sends = new BatchedSends();
    const order: string[] = [];
    let drains = 0;
    let inDrain = false;
    const send = (name: string) => () => {
      order.push(name);
      if (inDrain) return;
      inDrain = true;
      drains++;
      // The sends of one drain run in one synchronous loop: the microtask marks its end.
      queueMicrotask(() => (inDrain = false));
    };
    sends.soon(send('first'));
    sends.soon(send('second'));
    await nextTurn();
    order.push('next turn');
    sends.soon(send('third'));
    await nextTurn();
    expect(order).toEqual(['first', 'second', 'next turn', 'third']);
    expect(drains).toBe(2);
  });

  it('keeps sending after a send that throws', async () => {
    const sends = new BatchedSends();
    const ran: string[] = [];
    sends.soon(() => {
      throw new Error('connection closed');
    });
    sends.soon(() => ran.push('after'));
    await nextTurn();
    expect(ran).toEqual(['after']);
  });

  it('sends held sends with the next turn of sends, in one drain', async () => {
    const sends = new BatchedSends();
    const order: string[] = [];
    let drain = 0;
    const send = (name: string) => () => order.push(`${name}@${drain}`);
    sends.held(send('ack'));
    sends.held(send('record'));
    await nextTurn();
    expect(order).toEqual([]);
    drain = 1;
    sends.soon(send('publish'));
    await nextTurn();
    // A drain is one synchronous loop: everything in it shares the write at its end.
    expect(order).toEqual(['publish@1', 'ack@1', 'record@1']);
  });

  it('sends held sends on their own after HOLD_MS when no other send comes', async () => {
    const sends = new BatchedSends();
    const sent: number[] = [];
    const started = performance.now();
    sends.held(() => sent.push(performance.now() - started));
    sends.held(() => sent.push(performance.now() - started));
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS / 2));
    expect(sent).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBeGreaterThanOrEqual(HOLD_MS - 1);
  });

  it('sends held sends in this turn once HELD_MAX wait', async () => {
    const sends = new BatchedSends();
    let sent = 0;
    for (let i = 0; i < HELD_MAX; i++) sends.held(() => sent++);
    await nextTurn();
    expect(sent).toBe(HELD_MAX);
  });

  it('runs sends queued by a send in the same drain, held or not', async () => {
    const sends = new BatchedSends();
    const order: string[] = [];
    let inDrain = true;
    sends.held(() => {
      order.push('flush');
      sends.held(() => order.push(`record publish${inDrain ? '' : ' (later)'}`));
      sends.soon(() => order.push(`ack${inDrain ? '' : ' (later)'}`));
    });
    sends.soon(() => order.push('publish'));
    await nextTurn();
    inDrain = false;
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS * 2));
    expect(order).toEqual(['publish', 'flush', 'ack', 'record publish']);
  });

  it('runs every queued and held send at once when flushed, and nothing twice', async () => {
    const sends = new BatchedSends();
    const sent: string[] = [];
    sends.held(() => sent.push('ack'));
    sends.soon(() => sent.push('publish'));
    sends.flush();
    expect(sent).toEqual(['publish', 'ack']);
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS * 2));
    expect(sent).toEqual(['publish', 'ack']);
  });
});
