import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/harness/seeded-random.js';
import { formatCreatedAt, formatCreatedAtMillis } from './event-message.js';

/** The text made afresh every time, as Hasura's `timestamp` column shows it. */
function fresh(microsSinceEpoch: bigint): string {
  const millis = Number(microsSinceEpoch / 1000n);
  const micros = Number(microsSinceEpoch % 1_000_000n);
  return `${new Date(millis).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}`;
}

describe('formatCreatedAt', () => {
  it('writes what a fresh Date would, within a second, across seconds and before 1970', () => {
    const pick = seededRandom(5);
    let at = 1_795_000_000_000_000n;
    const cases: bigint[] = [0n, 999_999n, 1_000_000n, -1n, -1_500_000n, -1_000_000n, -2_500_000n, 1_000_000n - 1n];
    for (let step = 0; step < 2000; step++) {
      at += BigInt(pick(4) === 0 ? pick(3_000_000) : pick(2_000));
      cases.push(at);
      if (pick(10) === 0) cases.push(-at / 1_000_000n);
    }
    for (const micros of cases) expect(formatCreatedAt(micros), String(micros)).toBe(fresh(micros));
    expect(formatCreatedAt(1_795_000_000_123_456n)).toBe('2026-11-18T11:06:40.123456');
  });
});

describe('formatCreatedAtMillis', () => {
  it('writes what formatCreatedAt does for the same time in microseconds', () => {
    const pick = seededRandom(7);
    let at = 1_795_000_000_000;
    const cases = [0, 999, 1000, -1, -1500, 1_795_000_000_123];
    for (let step = 0; step < 2000; step++) {
      at += pick(4) === 0 ? pick(3_000) : pick(2);
      cases.push(at);
    }
    for (const millis of cases) expect(formatCreatedAtMillis(millis), String(millis)).toBe(formatCreatedAt(BigInt(millis) * 1000n));
    expect(formatCreatedAtMillis(1_795_000_000_123)).toBe('2026-11-18T11:06:40.123000');
  });
});
