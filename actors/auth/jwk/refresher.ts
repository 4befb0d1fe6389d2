import type { JWTVerifyGetKey } from 'jose';
import { ConfigError } from '../../../src/config/load.js';
import { OPTIONS } from '../../../src/config/options.js';
import { JWK_SET_ALGORITHMS } from '../jwt/config.js';
import type { JwtKeySource } from '../jwt/keys.js';
import { refreshAfter } from './cache-headers.js';
import { httpJwkFetcher, type JwkFetcher } from './fetch.js';
import { parseKeySet, type ParsedKeySet } from './key-set.js';

export interface JwkRefresherOptions {
  url: string;
  fetch?: JwkFetcher;
  /** Publishes on the monitor subject `<p>.monitor.events.auth.jwk`. */
  announce(detail: Record<string, unknown>): void;
  /** Sleep after a refresh cycle whose response gave no usable time (interface 5.4: 1 minute). */
  retryDelayMs?: number;
  /** Floor under any wait, so `max-age=0` or a past `Expires` cannot make a busy loop. */
  minDelayMs?: number;
  now?: () => number;
}

/** setTimeout's largest delay; longer cache lifetimes are waited for in steps of it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The keys of a `jwk_url` config (interface 5.4). Fetched at start, where a failure
 * stops start-up. Refreshed only when that first response said when (Cache-Control
 * max-age / s-maxage, else Expires); then each cycle waits for the time its response
 * gives, or 1 minute when it gives none or the fetch fails. A failed fetch keeps the
 * last good keys and is announced on the monitor subject.
 */
export class JwkRefresher implements JwtKeySource {
  readonly algorithms = JWK_SET_ALGORITHMS;
  private keys: ParsedKeySet;
  private keysVersion = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private refreshing: 'never' | 'scheduled' = 'never';
  private nextRefreshAt: number | undefined;
  private lastError: string | undefined;
  private fetches = 0;

  private constructor(
    private readonly options: Required<Omit<JwkRefresherOptions, 'fetch'>> & { fetch: JwkFetcher },
    first: ParsedKeySet,
  ) {
    this.keys = first;
  }

  static async start(options: JwkRefresherOptions): Promise<JwkRefresher> {
    const settings = { retryDelayMs: 60_000, minDelayMs: 1000, now: Date.now, fetch: httpJwkFetcher(), ...options };
    let response;
    let keys: ParsedKeySet;
    try {
      response = await settings.fetch(settings.url);
      keys = parseKeySet(response.body);
    } catch (error) {
      const { env, flag } = OPTIONS.jwtSecret;
      options.announce({ event: 'fetch_failed', url: settings.url, error: (error as Error).message, at_start: true });
      throw new ConfigError(`invalid value for ${env} (${flag}): jwk_url: could not load the JWK set from ${settings.url}: ${(error as Error).message}`, { cause: error });
    }
    const refresher = new JwkRefresher(settings, keys);
    refresher.fetches = 1;
    const after = refreshAfter(response.headers, settings.now());
    if (after.usable) {
      refresher.refreshing = 'scheduled';
      refresher.schedule(after.delayMs);
    }
    options.announce({ event: 'fetched', url: settings.url, kids: keys.kids, skipped: keys.skipped, refresh: after.usable ? `in ${after.delayMs} ms` : `never: ${after.reason}` });
    return refresher;
  }

  get version(): number {
    return this.keysVersion;
  }

  current(): JWTVerifyGetKey {
    return this.keys.verify;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  gauges(): Record<string, number | string | boolean | null> {
    return {
      jwk_keys: this.keys.kids.length,
      jwk_version: this.keysVersion,
      jwk_fetches: this.fetches,
      jwk_refresh: this.refreshing,
      jwk_next_refresh_at: this.nextRefreshAt === undefined ? null : new Date(this.nextRefreshAt).toISOString(),
      jwk_last_error: this.lastError ?? null,
    };
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const wait = Math.max(this.options.minDelayMs, delayMs);
    this.nextRefreshAt = this.options.now() + wait;
    this.arm();
  }

  private arm(): void {
    const remaining = (this.nextRefreshAt ?? 0) - this.options.now();
    this.timer = setTimeout(() => (remaining > MAX_TIMER_MS ? this.arm() : void this.refresh()), Math.min(Math.max(remaining, 0), MAX_TIMER_MS));
    this.timer.unref();
  }

  /** One refresh cycle; always schedules the next one. */
  private async refresh(): Promise<void> {
    const { url, announce, retryDelayMs } = this.options;
    let delayMs = retryDelayMs;
    try {
      this.fetches++;
      const response = await this.options.fetch(url);
      const keys = parseKeySet(response.body);
      const rotated = keys.fingerprint !== this.keys.fingerprint;
      this.keys = keys;
      if (rotated) this.keysVersion++;
      this.lastError = undefined;
      const after = refreshAfter(response.headers, this.options.now());
      if (after.usable) delayMs = after.delayMs;
      announce({ event: 'refreshed', url, kids: keys.kids, rotated, next_refresh_ms: Math.max(this.options.minDelayMs, delayMs), ...(after.usable ? {} : { warning: after.reason }) });
    } catch (error) {
      this.lastError = (error as Error).message;
      announce({ event: 'refresh_failed', url, error: this.lastError, kept_kids: this.keys.kids, next_refresh_ms: delayMs });
    }
    this.schedule(delayMs);
  }
}
