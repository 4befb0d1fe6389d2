import type { ChangeNotice } from '../../src/bus/messages/subscriptions.js';

/** Without a notice or heartbeat for this long, the feed is taken as silent and pollers poll. */
export const FEED_SILENCE_MS = 3_000;

/** What the feed's notices mean for the pollers. */
export interface FeedReaction {
  /** The notice's tables changed: their pollers fetch again. */
  tables: readonly string[];
  /** Something may have been missed (a new reader, a lost notice): every poller fetches again. */
  refreshAll: boolean;
}

/**
 * Follows the change feed (`<p>.changes.tables`): which reader run (epoch) is speaking,
 * whether a notice went missing (a gap in its sequence), and whether anything was heard
 * lately. A new epoch or a gap means changes may have gone unseen, so every poller
 * fetches once; silence means the pollers poll until the feed speaks again.
 */
export class ChangeFeed {
  #epoch: string | null = null;
  #seq = 0;
  #heardAt = Number.NEGATIVE_INFINITY;

  heard(notice: ChangeNotice, now: number): FeedReaction {
    const wasLive = this.live(now);
    this.#heardAt = now;
    if (notice.epoch !== this.#epoch) {
      this.#epoch = notice.epoch;
      this.#seq = notice.seq;
      return { tables: notice.tables, refreshAll: true };
    }
    // A heartbeat repeats the last sequence number; a notice carries the next one.
    const expected = notice.tables.length === 0 ? this.#seq : this.#seq + 1;
    const gap = notice.seq !== expected;
    this.#seq = Math.max(this.#seq, notice.seq);
    return { tables: notice.tables, refreshAll: gap || !wasLive };
  }

  live(now: number): boolean {
    return now - this.#heardAt <= FEED_SILENCE_MS;
  }
}
