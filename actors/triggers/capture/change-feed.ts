import type { Bus } from '../../../src/bus/bus.js';
import type { ChangeNotice } from '../../../src/bus/messages/subscriptions.js';

/** What capture tells the change feed. */
export interface ChangeFeedSink {
  /** A transaction committed with changes to these tables (relation keys). */
  committed(tables: readonly string[], commitLsn: string): void;
  started(): void;
  stopped(): void;
}

/** How often the reader says it is alive, so subscribers can tell a quiet feed from a lost one. */
const HEARTBEAT_MS = 1_000;
/** Subscriptions ask for the feed every 2 s; without an ask for this long it is not wanted. */
const WANTED_FOR_MS = 10_000;
/** The slot is kept this long after the feed was last wanted (making one waits for writing transactions). */
const WANTED_LATELY_MS = 5 * 60_000;

/**
 * The change feed of subscriptions (ARCHITECTURE "Changes for subscriptions"): while the
 * slot is read here and some instance wants it (`<p>.changes.wanted`), every committed
 * transaction's tables are broadcast on `<p>.changes.tables`, one message per
 * transaction, numbered within this reading (the epoch) so that a lost one shows, with a
 * heartbeat every second.
 */
export class ChangeFeedPublisher implements ChangeFeedSink {
  readonly #bus: Bus;
  readonly #instance: string;
  #wantedAt = Number.NEGATIVE_INFINITY;
  #epoch: string | null = null;
  #seq = 0;
  #lsn = '0/0';
  #heartbeat: NodeJS.Timeout | null = null;

  constructor(bus: Bus, instance: string) {
    this.#bus = bus;
    this.#instance = instance;
  }

  /** An instance asked for the feed. */
  want(now = Date.now()): void {
    this.#wantedAt = now;
  }

  wanted(now = Date.now()): boolean {
    return now - this.#wantedAt <= WANTED_FOR_MS;
  }

  wantedLately(now = Date.now()): boolean {
    return now - this.#wantedAt <= WANTED_LATELY_MS;
  }

  started(): void {
    this.#epoch = `${this.#instance}:${Date.now()}`;
    this.#seq = 0;
    if (this.#heartbeat === null) {
      this.#heartbeat = setInterval(() => this.#publish([]), HEARTBEAT_MS);
      this.#heartbeat.unref();
    }
  }

  stopped(): void {
    this.#epoch = null;
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
  }

  committed(tables: readonly string[], commitLsn: string): void {
    this.#lsn = commitLsn;
    this.#publish(tables);
  }

  #publish(tables: readonly string[]): void {
    if (this.#epoch === null || !this.wanted()) return;
    if (tables.length > 0) this.#seq++;
    const notice: ChangeNotice = { epoch: this.#epoch, seq: this.#seq, lsn: this.#lsn, tables: [...tables] };
    this.#bus.publish(this.#bus.subjects.changesTables, notice);
  }
}
