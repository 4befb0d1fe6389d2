import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { maxAgeSeconds, parseHttpDate, refreshAfter } from '../../actors/auth/jwk/cache-headers.js';
import type { JwkFetcher, JwkResponse } from '../../actors/auth/jwk/fetch.js';
import { JwkRefresher } from '../../actors/auth/jwk/refresher.js';
import { ConfigError } from '../../src/config/load.js';
import { rsaPair } from './fixtures.js';

describe('when to refresh the JWK set (interface 5.4)', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');

  it('takes max-age or s-maxage from Cache-Control, the first one given', () => {
    expect(refreshAfter({ 'cache-control': 'public, max-age=300, must-revalidate' }, now)).toEqual({ usable: true, delayMs: 300_000 });
    expect(refreshAfter({ 'cache-control': 's-maxage=60, max-age=10' }, now)).toEqual({ usable: true, delayMs: 60_000 });
    expect(maxAgeSeconds('MAX-AGE = 5')).toBe(5);
  });

  it('takes Expires only when there is no Cache-Control', () => {
    const expires = 'Tue, 01 Jan 2030 00:10:00 GMT';
    expect(refreshAfter({ expires }, now)).toEqual({ usable: true, delayMs: 600_000 });
    expect(refreshAfter({ 'cache-control': 'no-cache', expires }, now).usable).toBe(false);
  });

  it('finds nothing usable in a Cache-Control without max-age, an Expires that is no date, or no header', () => {
    expect(refreshAfter({ 'cache-control': 'no-store' }, now).usable).toBe(false);
    expect(refreshAfter({ 'cache-control': 'max-age=soon' }, now).usable).toBe(false);
    expect(refreshAfter({ expires: '0' }, now).usable).toBe(false);
    expect(refreshAfter({ expires: '-1' }, now).usable).toBe(false);
    expect(refreshAfter({}, now).usable).toBe(false);
  });

  it('reads the three HTTP date formats', () => {
    const at = Date.parse('1994-11-06T08:49:37Z');
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(at);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(at);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(at);
  });
});

describe('JwkRefresher schedule', () => {
  const pair = rsaPair();
  const body = { keys: [pair.jwk('a')] };
  let responses: (JwkResponse | Error)[];
  let calls: number;
  const fetch: JwkFetcher = async () => {
    calls++;
    const next = responses.length > 1 ? responses.shift()! : responses[0]!;
    if (next instanceof Error) throw next;
    return next;
  };
  const announced: Record<string, unknown>[] = [];
  let refresher: JwkRefresher | undefined;

  beforeEach(() => {
    vi.useFakeTimers();
    calls = 0;
    announced.length = 0;
  });
  afterEach(() => {
    refresher?.stop();
    vi.useRealTimers();
  });

  const start = () => JwkRefresher.start({ url: 'http://jwks.test/keys', fetch, announce: (detail) => void announced.push(detail) });

  it('sleeps 1 minute after a refresh whose response gives no time, then keeps going', async () => {
    responses = [{ body, headers: { 'cache-control': 'max-age=10' } }, { body, headers: {} }, { body, headers: { 'cache-control': 'max-age=30' } }];
    refresher = await start();
    await vi.advanceTimersByTimeAsync(9_999);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(3);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(calls).toBe(4);
  });

  it('keeps the last good keys when a refresh fails, retries in 1 minute, and announces it', async () => {
    responses = [{ body, headers: { 'cache-control': 'max-age=5' } }, new Error('connection refused'), { body: { keys: [] }, headers: {} }, { body, headers: {} }];
    refresher = await start();
    const before = refresher.current();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(calls).toBe(2);
    expect(refresher.current()).toBe(before);
    expect(announced.at(-1)).toMatchObject({ event: 'refresh_failed', error: 'connection refused', kept_kids: ['a'] });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(3);
    expect(refresher.current()).toBe(before);
    expect(announced.at(-1)).toMatchObject({ event: 'refresh_failed' });
    expect(refresher.gauges().jwk_last_error).toMatch(/no usable RSA signing key/);
  });

  it('never refreshes when the first response gives no time', async () => {
    responses = [{ body, headers: { 'cache-control': 'no-cache' } }];
    refresher = await start();
    await vi.advanceTimersByTimeAsync(24 * 3600_000);
    expect(calls).toBe(1);
    expect(announced[0]).toMatchObject({ event: 'fetched', refresh: 'never: Cache-Control has no max-age or s-maxage' });
  });

  it('waits at least 1 second, so that max-age=0 cannot make a busy loop', async () => {
    responses = [{ body, headers: { 'cache-control': 'max-age=0' } }];
    refresher = await start();
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
  });

  it('changes the key version only when the keys change', async () => {
    responses = [{ body, headers: { 'cache-control': 'max-age=1' } }, { body, headers: { 'cache-control': 'max-age=1' } }, { body: { keys: [rsaPair().jwk('b')] }, headers: { 'cache-control': 'max-age=1' } }];
    refresher = await start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(refresher.version).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(refresher.version).toBe(1);
  });

  it('stops refreshing when stopped', async () => {
    responses = [{ body, headers: { 'cache-control': 'max-age=1' } }];
    refresher = await start();
    refresher.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toBe(1);
  });

  it('refuses to start when the first fetch fails', async () => {
    responses = [new Error('ECONNREFUSED')];
    await expect(start()).rejects.toThrow(ConfigError);
    expect(announced[0]).toMatchObject({ event: 'fetch_failed', at_start: true });
  });
});
