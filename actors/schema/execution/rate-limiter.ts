import { createHash } from 'node:crypto';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { RateLimit } from '../../../src/metadata/types.js';
import type { Session } from '../../../src/session/session.js';

const MINUTE_MS = 60_000;
/** Writes that lost a race to another instance's, tried again before the request is refused. */
const MAX_ATTEMPTS = 20;
/** An instance takes places from the shared count this many at a time: 1% of the limit, so at most 1% per instance goes unused. */
const PLACES_PER_TAKE_PERCENT = 1;

/** Places this instance has taken from a client's count for one minute and not yet used. */
interface Allowance {
  minute: number;
  left: number;
  /** The previous minute's count, weighed in by the share of it still inside the last 60 s when places are taken. */
  previous: number;
}

/**
 * Counts operations per client and minute in a JetStream KV bucket, so every instance of
 * the cluster sees the same counts (Hasura needs Redis for this). The window slides as
 * Hasura's does, approximated by two fixed minutes: the previous minute's count weighs in
 * by the share of it still inside the last 60 s. A count is raised by compare-and-set on
 * its revision, so two instances never both take the last place; and it is raised a
 * share of the limit at a time, which the instance then hands out itself, so a busy
 * client costs one KV write per 1% of its limit, not one per request. Places taken and
 * not used count as used: the limit errs on the side of refusing.
 */
export class RateLimiter {
  readonly #kv: () => Promise<KV>;
  readonly #allowances = new Map<string, Allowance>();
  /** One refill at a time per client: requests arriving meanwhile wait for it. */
  readonly #refills = new Map<string, Promise<void>>();
  #sweptMinute = 0;

  constructor(kv: () => Promise<KV>) {
    this.#kv = kv;
  }

  /** Takes `count` places for `client` under `limit` per minute; false when they are not all free. */
  async admit(client: string, limit: number, count: number, now = Date.now()): Promise<boolean> {
    const id = createHash('sha256').update(client).digest('hex').slice(0, 32);
    const minute = Math.floor(now / MINUTE_MS);
    this.#sweep(minute);
    for (;;) {
      const allowance = this.#allowances.get(id);
      if (allowance !== undefined && allowance.minute === minute && allowance.left >= count) {
        allowance.left -= count;
        return true;
      }
      const pending = this.#refills.get(id);
      if (pending !== undefined) {
        await pending;
        continue;
      }
      const refill = this.#refill(id, minute, limit, count, now);
      const settled = refill.then(() => undefined, () => undefined);
      this.#refills.set(id, settled);
      try {
        if (!(await refill)) return false;
      } finally {
        this.#refills.delete(id);
      }
    }
  }

  /** Takes more places from the shared count; false when fewer than `count` are free. */
  async #refill(id: string, minute: number, limit: number, count: number, now: number): Promise<boolean> {
    const kv = await this.#kv();
    let allowance = this.#allowances.get(id);
    if (allowance === undefined || allowance.minute !== minute) {
      const before = await kv.get(`${id}.${minute - 1}`);
      allowance = { minute, left: 0, previous: before === null || before.operation !== 'PUT' ? 0 : Number(before.string()) };
      this.#allowances.set(id, allowance);
    }
    const carried = allowance.previous * (1 - (now % MINUTE_MS) / MINUTE_MS);
    const wanted = Math.max(count - allowance.left, Math.ceil((limit * PLACES_PER_TAKE_PERCENT) / 100));
    const key = `${id}.${minute}`;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entry = await kv.get(key);
      const current = entry === null || entry.operation !== 'PUT' ? 0 : Number(entry.string());
      const free = Math.floor(limit - carried - current);
      if (allowance.left + free < count) return false;
      const taken = Math.min(wanted, free);
      try {
        if (entry === null) await kv.create(key, String(current + taken));
        else await kv.update(key, String(current + taken), entry.revision);
        allowance.left += taken;
        return true;
      } catch (error) {
        if (!isLostRace(error)) throw error;
      }
    }
    return false;
  }

  /** Forgets the allowances of minutes gone by, once a minute. */
  #sweep(minute: number): void {
    if (minute === this.#sweptMinute) return;
    this.#sweptMinute = minute;
    for (const [id, allowance] of this.#allowances) if (allowance.minute < minute) this.#allowances.delete(id);
  }
}

/** Another instance wrote the key first: the create found it, or the update's revision is stale. */
function isLostRace(error: unknown): boolean {
  return error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);
}

/**
 * Whom a rate limit counts: the role, and the client's IP or the values of the listed
 * session variables. The IP is the socket's, or, when the operator trusts a proxy in
 * front, the proxy's word (`x-real-ip`, then the first `x-forwarded-for` address, as
 * Hasura reads them): a client could otherwise name a new IP on every request.
 */
export function rateLimitedClient(rate: RateLimit, session: Session, headers: Record<string, string>, socketAddress: string, trustProxyHeaders: boolean): string {
  if (rate.unique_params === undefined) return session.role;
  if (rate.unique_params === 'IP') {
    const forwarded = trustProxyHeaders ? headers['x-real-ip']?.trim() || headers['x-forwarded-for']?.split(',')[0]?.trim() : undefined;
    return `${session.role}\u0000ip\u0000${forwarded || socketAddress}`;
  }
  return [session.role, 'vars', ...rate.unique_params.map((name) => session.variables[name] ?? '')].join('\u0000');
}
