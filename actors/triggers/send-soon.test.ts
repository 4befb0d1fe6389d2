import { describe, expect, it } from 'vitest';
import { BatchedSends } from './send-soon.js';

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
});
