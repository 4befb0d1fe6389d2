import { describe, expect, it } from 'vitest';
import { ChangeFeed, FEED_SILENCE_MS } from '../../actors/subscriptions/change-feed.js';

const notice = (epoch: string, seq: number, tables: string[] = []) => ({ epoch, seq, lsn: '0/0', tables });

describe('what the change feed tells the pollers', () => {
  it('refreshes everything when a new reader speaks: what the old one read last may never have been announced', () => {
    const feed = new ChangeFeed();
    expect(feed.heard(notice('a', 1, ['public.item']), 0)).toEqual({ tables: ['public.item'], refreshAll: true });
    expect(feed.heard(notice('a', 2, ['public.item']), 10)).toEqual({ tables: ['public.item'], refreshAll: false });
    expect(feed.heard(notice('b', 1), 20)).toEqual({ tables: [], refreshAll: true });
  });

  it('takes a heartbeat as the same sequence number, and a gap as a lost notice', () => {
    const feed = new ChangeFeed();
    feed.heard(notice('a', 5), 0);
    expect(feed.heard(notice('a', 5), 10).refreshAll).toBe(false);
    expect(feed.heard(notice('a', 6, ['public.item']), 20).refreshAll).toBe(false);
    expect(feed.heard(notice('a', 8, ['public.item']), 30)).toEqual({ tables: ['public.item'], refreshAll: true });
  });

  it('is silent after a while without a word, and refreshes everything when it speaks again', () => {
    const feed = new ChangeFeed();
    expect(feed.live(0)).toBe(false);
    feed.heard(notice('a', 1), 0);
    expect(feed.live(FEED_SILENCE_MS)).toBe(true);
    expect(feed.live(FEED_SILENCE_MS + 1)).toBe(false);
    expect(feed.heard(notice('a', 1), FEED_SILENCE_MS + 1).refreshAll).toBe(true);
  });
});
