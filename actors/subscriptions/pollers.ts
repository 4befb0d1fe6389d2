import { LatencyWindow } from '../../src/actor/latency.js';
import { RateWindow } from '../../src/actor/rate.js';
import type { Delivery, SubscriptionPlanReply } from '../../src/bus/messages/subscriptions.js';
import { graphqlErrorBody } from '../../src/errors/bodies.js';
import { databaseError } from '../../src/errors/database.js';
import type { Logger } from '../../src/log/logger.js';
import { isAdmin } from '../../src/session/session.js';
import { DatabaseUnavailable, type CohortFetcher, type CohortResult } from './fetcher.js';
import type { Cohort, Poller, PollerMode, Subscription } from './model.js';

type Plan = Extract<SubscriptionPlanReply, { ok: true }>;

export interface PollersOptions {
  fetcher: CohortFetcher;
  deliver(delivery: Delivery): void;
  /** Cohorts per statement, for live queries and for streams. */
  batchSize: { live: number; stream: number };
  /** How often a polled poller fetches, for live queries and for streams. */
  refetchDelayMs: { live: number; stream: number };
  /** How long a change waits for more before its pollers fetch. */
  coalesceMs: number;
  log: Logger;
}

interface PollerState extends Poller {
  mode: PollerMode;
  /** Every cohort is to be fetched again (a change, a poll, a gap in the feed). */
  dirty: boolean;
  /** Cohorts to fetch for their new subscribers, before the next full fetch. */
  readonly fresh: Set<Cohort>;
  running: boolean;
  /** The coalescing timer of a change, or the interval of a polled poller. */
  timer: NodeJS.Timeout | null;
  interval: NodeJS.Timeout | null;
  /** When the change that made it dirty was heard (ms, monotonic), for the push latency. */
  changedAt: number | null;
  /** When its last fetch of every cohort started (ms, monotonic): the next waits a coalescing window after it. */
  fullFetchAt: number;
}

let nextCohort = 0;

/** While the database is unavailable, a poller tries its fetch again this often. */
const UNAVAILABLE_RETRY_MS = 1_000;

/**
 * The pollers, cohorts and subscriptions of this instance, and when each poller fetches:
 * on a change to a table it reads (change-driven), or every refetch delay (polling) when
 * the change feed cannot see what it reads or is not heard. Fetches of one poller run one
 * after the other, so a result is never overtaken by an older one and a stream never
 * delivers a batch twice. A result reaches only the subscribers it is new to.
 */
export class Pollers {
  readonly #options: PollersOptions;
  readonly #pollers = new Map<string, PollerState>();
  readonly #watching = new Map<string, Set<PollerState>>();
  #feedLive = false;
  /** The database failed a fetch and none has succeeded since: logged once, not per poller. */
  #unavailable = false;
  #published: ReadonlySet<string> = new Set();
  readonly pushLatency = new LatencyWindow();
  counters = { fetches: 0, pushes: 0 };
  readonly #rates = { fetches: new RateWindow(), pushes: new RateWindow() };

  constructor(options: PollersOptions) {
    this.#options = options;
  }

  /** Puts a subscription into its plan's poller and cohort, and gets it its first result. */
  add(subscription: Subscription, plan: Plan): void {
    let poller = this.#pollers.get(plan.sql);
    if (poller === undefined) {
      poller = { sql: plan.sql, tables: plan.tables, cursor: plan.cursor, cohorts: new Map(), mode: 'polling', dirty: false, fresh: new Set(), running: false, timer: null, interval: null, changedAt: null, fullFetchAt: Number.NEGATIVE_INFINITY };
      this.#pollers.set(plan.sql, poller);
      for (const table of plan.tables ?? []) this.#watchers(table).add(poller);
      this.#setMode(poller);
    }
    // A stream's cohort is its subscriber alone: each keeps its own cursor.
    const key = plan.cursor === null ? JSON.stringify(plan.values) : `${subscription.connection}\u0000${subscription.id}`;
    let cohort = poller.cohorts.get(key);
    if (cohort === undefined) {
      cohort = { id: String(++nextCohort), key, poller, values: plan.values, subscribers: new Set(), last: null };
      poller.cohorts.set(key, cohort);
    }
    cohort.subscribers.add(subscription);
    subscription.cohort = cohort;
    if (cohort.last !== null && plan.cursor === null) this.#push([subscription], cohort.last);
    else {
      poller.fresh.add(cohort);
      this.#run(poller);
    }
  }

  remove(subscription: Subscription): void {
    const cohort = subscription.cohort;
    subscription.cohort = null;
    if (cohort === null) return;
    cohort.subscribers.delete(subscription);
    if (cohort.subscribers.size > 0) return;
    const poller = cohort.poller as PollerState;
    poller.cohorts.delete(cohort.key);
    poller.fresh.delete(cohort);
    if (poller.cohorts.size > 0) return;
    // A poller with no cohorts stops.
    this.#pollers.delete(poller.sql);
    for (const table of poller.tables ?? []) this.#watching.get(table)?.delete(poller);
    if (poller.timer !== null) clearTimeout(poller.timer);
    if (poller.interval !== null) clearInterval(poller.interval);
  }

  /** The change feed reports a committed transaction's tables: their pollers fetch again. */
  tablesChanged(tables: readonly string[]): void {
    const heard = performance.now();
    for (const table of tables) {
      for (const poller of this.#watching.get(table) ?? []) {
        if (poller.mode !== 'change-driven') continue;
        poller.changedAt ??= heard;
        this.#schedule(poller);
      }
    }
  }

  /** Every change-driven poller fetches again: the feed resumed, or lost a notice. */
  refreshAll(): void {
    for (const poller of this.#pollers.values()) if (poller.mode === 'change-driven') this.#schedule(poller);
  }

  /** Whether the change feed is heard, and which tables it reports: each poller's mode follows. */
  setFeed(live: boolean, published: ReadonlySet<string>): void {
    this.#feedLive = live;
    this.#published = published;
    for (const poller of this.#pollers.values()) this.#setMode(poller);
  }

  /** Whether some poller would follow the change feed (so the slot should be read). */
  get wantsFeed(): boolean {
    for (const poller of this.#pollers.values()) if (poller.tables !== null && poller.tables.every((table) => this.#published.has(table))) return true;
    return false;
  }

  gauges(): Record<string, number> {
    let cohorts = 0;
    let changeDriven = 0;
    const subscriptions = { 'change-driven': 0, polling: 0 };
    for (const poller of this.#pollers.values()) {
      cohorts += poller.cohorts.size;
      if (poller.mode === 'change-driven') changeDriven++;
      for (const cohort of poller.cohorts.values()) subscriptions[poller.mode] += cohort.subscribers.size;
    }
    const latency = this.pushLatency.percentiles();
    return {
      cohorts,
      pollers_change_driven: changeDriven,
      pollers_polling: this.#pollers.size - changeDriven,
      subscriptions_change_driven: subscriptions['change-driven'],
      subscriptions_polling: subscriptions.polling,
      subscription_fetches: this.counters.fetches,
      subscription_statements: this.#options.fetcher.statements,
      subscription_pushes: this.counters.pushes,
      refetches_per_s: this.#rates.fetches.perSecond(),
      pushes_per_s: this.#rates.pushes.perSecond(),
      push_latency_p50_ms: latency.p50,
      push_latency_p99_ms: latency.p99,
    };
  }

  stop(): void {
    for (const poller of this.#pollers.values()) {
      if (poller.timer !== null) clearTimeout(poller.timer);
      if (poller.interval !== null) clearInterval(poller.interval);
    }
    this.#pollers.clear();
    this.#watching.clear();
  }

  #watchers(table: string): Set<PollerState> {
    let set = this.#watching.get(table);
    if (set === undefined) this.#watching.set(table, (set = new Set()));
    return set;
  }

  #setMode(poller: PollerState): void {
    const followed = this.#feedLive && poller.tables !== null && poller.tables.every((table) => this.#published.has(table));
    const mode: PollerMode = followed ? 'change-driven' : 'polling';
    if (mode === poller.mode && (mode === 'change-driven' || poller.interval !== null)) return;
    const wasPolling = poller.mode === 'polling';
    poller.mode = mode;
    if (poller.interval !== null) clearInterval(poller.interval);
    poller.interval = null;
    if (mode === 'polling') {
      const delay = poller.cursor === null ? this.#options.refetchDelayMs.live : this.#options.refetchDelayMs.stream;
      poller.interval = setInterval(() => this.#schedule(poller, 0), delay);
      poller.interval.unref();
    } else if (wasPolling && poller.cohorts.size > 0) {
      // Changes made while polling are caught up at once.
      this.#schedule(poller, 0);
    }
  }

  #schedule(poller: PollerState, delay = this.#options.coalesceMs): void {
    poller.dirty = true;
    if (poller.running || poller.timer !== null) return;
    poller.timer = setTimeout(() => {
      poller.timer = null;
      this.#run(poller);
    }, delay);
  }

  #run(poller: PollerState): void {
    if (poller.running) return;
    poller.running = true;
    void this.#drain(poller).then((reached) => {
      poller.running = false;
      if (this.#pollers.get(poller.sql) !== poller || !(poller.dirty || poller.fresh.size > 0)) return;
      this.#schedule(poller, reached ? 0 : UNAVAILABLE_RETRY_MS);
    });
  }

  /**
   * Fetches what the poller needs, one round after the other, until nothing is left; false
   * when the database was unavailable, what was to be fetched then being kept for later.
   */
  async #drain(poller: PollerState): Promise<boolean> {
    while (poller.dirty || poller.fresh.size > 0) {
      // Changes heard during a fetch are fetched together, a window after it began: at
      // most one fetch of every cohort per poller per window, however fast changes come.
      // (A stream's next batch is not held back: it is what the subscriber is owed.)
      const wait = poller.fresh.size === 0 && poller.cursor === null ? poller.fullFetchAt + this.#options.coalesceMs - performance.now() : 0;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (this.#pollers.get(poller.sql) !== poller) return true;
      const full = poller.dirty;
      if (full) poller.fullFetchAt = performance.now();
      const changedAt = poller.changedAt;
      poller.dirty = false;
      poller.changedAt = null;
      const cohorts = full ? [...poller.cohorts.values()] : [...poller.fresh];
      poller.fresh.clear();
      const size = poller.cursor === null ? this.#options.batchSize.live : this.#options.batchSize.stream;
      const batches: Cohort[][] = [];
      for (let start = 0; start < cohorts.length; start += size) batches.push(cohorts.slice(start, start + size));
      this.counters.fetches++;
      this.#rates.fetches.add();
      try {
        await Promise.all(batches.map(async (batch) => this.#apply(poller, batch, await this.#options.fetcher.fetch(poller, batch))));
      } catch (error) {
        if (!(error instanceof DatabaseUnavailable)) {
          this.#options.log.error({ err: error }, 'subscription fetch failed');
          continue;
        }
        if (!this.#unavailable) this.#options.log.warn({ err: error.cause }, 'subscriptions cannot fetch: the database is unavailable; trying again every second');
        this.#unavailable = true;
        if (full) poller.dirty = true;
        else for (const cohort of cohorts) if (poller.cohorts.get(cohort.key) === cohort) poller.fresh.add(cohort);
        poller.changedAt ??= changedAt;
        return false;
      }
      if (this.#unavailable) this.#options.log.info('subscriptions fetch again: the database is back');
      this.#unavailable = false;
      if (changedAt !== null) this.pushLatency.record(performance.now() - changedAt);
    }
    return true;
  }

  #apply(poller: PollerState, batch: readonly Cohort[], results: Map<string, CohortResult>): void {
    for (const cohort of batch) {
      if (poller.cohorts.get(cohort.key) !== cohort) continue;
      const result = results.get(cohort.id);
      if (result === undefined) continue;
      if ('error' in result) {
        this.#fail(cohort, result.error);
        continue;
      }
      if (poller.cursor !== null) {
        // An empty batch (no cursor) sends nothing; a full one may have more behind it.
        if (result.cursor === null) continue;
        cohort.values = cohort.values.map((value, index) => (index === poller.cursor ? result.cursor : value));
        this.#push([...cohort.subscribers], result.data, true);
        this.#schedule(poller, 0);
        continue;
      }
      cohort.last = result.data;
      this.#push([...cohort.subscribers], result.data);
    }
  }

  /** Sends `data` to the subscribers it is new to (all of them, for a stream's batch). */
  #push(subscribers: readonly Subscription[], data: string, always = false): void {
    const targets: [string, string][] = [];
    for (const subscriber of subscribers) {
      if (!always && subscriber.lastSent === data) continue;
      subscriber.lastSent = data;
      targets.push([subscriber.connection, subscriber.id]);
    }
    if (targets.length === 0) return;
    this.counters.pushes += targets.length;
    this.#rates.pushes.add(targets.length);
    this.#options.deliver({ kind: 'data', targets, payload: `{"data":${data}}` });
  }

  /** A cohort PostgreSQL refuses: its subscribers get the error and end. */
  #fail(cohort: Cohort, error: unknown): void {
    const subscribers = [...cohort.subscribers];
    for (const subscriber of subscribers) this.remove(subscriber);
    const admins = subscribers.filter((subscriber) => isAdmin(subscriber.session));
    const others = subscribers.filter((subscriber) => !isAdmin(subscriber.session));
    const failure = databaseError(error, { sql: cohort.poller.sql, values: cohort.values });
    for (const [group, showInternal] of [[admins, true], [others, false]] as const) {
      if (group.length === 0) continue;
      this.#options.deliver({ kind: 'error', targets: group.map((subscriber) => [subscriber.connection, subscriber.id]), payload: Buffer.from(graphqlErrorBody([failure], showInternal)).toString('utf8') });
    }
  }
}
