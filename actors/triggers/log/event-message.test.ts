import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/harness/seeded-random.js';
import { hash } from 'node:crypto';
import { capturedEventId, formatCreatedAt, formatCreatedAtMillis } from './event-message.js';

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

/** The version 5 layout set on the digest's bytes, as RFC 4122 writes it. */
function uuidOfDigest(name: string): string {
  const digest = hash('sha1', name, 'buffer');
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

describe('capturedEventId', () => {
  it('is the version 5 layout of the digest of the LSN, the position and the trigger', () => {
    const pick = seededRandom(11);
    for (let step = 0; step < 5000; step++) {
      const lsn = `${pick(256).toString(16).toUpperCase()}/${pick(2 ** 31).toString(16).toUpperCase()}`;
      const ordinal = pick(100_000);
      const trigger = `trigger_${pick(1000)}`;
      expect(capturedEventId(lsn, ordinal, trigger)).toBe(uuidOfDigest(`${lsn}|${ordinal}|${trigger}`));
    }
    expect(capturedEventId('0/16B3748', 1, 't')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
