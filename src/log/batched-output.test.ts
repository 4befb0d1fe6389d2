import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchedOutput, type DescriptorWrites } from './batched-output.js';

// The file descriptor's side, scripted: each asynchronous write answers with what `answers`
// says next (EAGAIN, or how many bytes it took), and every byte taken is kept in order.
const taken: string[] = [];
const answers: Array<'EAGAIN' | number> = [];
let inFlight: (() => void) | null = null;

const writes: DescriptorWrites = {
  write: ((_fd: number, bytes: Buffer, offset: number, length: number, _position: null, done: (error: NodeJS.ErrnoException | null, written: number) => void) => {
    inFlight = () => {
      inFlight = null;
      const answer = answers.shift() ?? length;
      if (answer === 'EAGAIN') return done(Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' }), 0);
      const written = Math.min(answer, length);
      taken.push(bytes.subarray(offset, offset + written).toString());
      done(null, written);
    };
  }) as DescriptorWrites['write'],
  writeSync: ((_fd: number, bytes: Buffer, offset: number, length: number) => {
    taken.push(bytes.subarray(offset, offset + length).toString());
    return length;
  }) as DescriptorWrites['writeSync'],
};

describe('BatchedOutput', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    taken.length = 0;
    answers.length = 0;
    inFlight = null;
  });
  afterEach(() => vi.useRealTimers());

  const output = () => new BatchedOutput(1, { batchChars: 10, flushMs: 50, maxPendingChars: 40, writes });

  it('writes a batch once enough waits, and what is left on the next tick of its timer', () => {
    const out = output();
    out.write('aaaa\n');
    expect(inFlight).toBeNull();
    out.write('bbbbbb\n');
    inFlight!();
    out.write('cc\n');
    vi.advanceTimersByTime(50);
    inFlight!();
    expect(taken).toEqual(['aaaa\nbbbbbb\n', 'cc\n']);
    out.flushSync();
  });

  it('writes the rest of a partly written batch before the next one', () => {
    const out = output();
    answers.push(3);
    out.write('0123456789\n');
    inFlight!();
    out.write('next line\n');
    inFlight!();
    inFlight!();
    expect(taken).toEqual(['012', '3456789\n', 'next line\n']);
    out.flushSync();
  });

  it('drops lines beyond the pending bound while nothing is written', () => {
    const out = output();
    answers.push('EAGAIN');
    for (let i = 0; i < 10; i++) out.write(`line ${i}\n`);
    inFlight!();
    out.flushSync();
    expect(taken.join('')).toBe(['line 0\nline 1\n', 'line 2\nline 3\nline 4\nline 5\nline 6\n'].join(''));
  });

  it('at exit writes a batch that met a full pipe first, then what waits, in order', () => {
    const out = output();
    answers.push('EAGAIN');
    out.write('first batch\n');
    inFlight!();
    out.write('later\n');
    out.flushSync();
    expect(taken).toEqual(['first batch\n', 'later\n']);
    // The retry timer was cleared: nothing is written twice.
    vi.advanceTimersByTime(1_000);
    expect(inFlight).toBeNull();
  });
});
