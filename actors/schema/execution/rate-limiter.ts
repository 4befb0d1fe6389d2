import { createHash } from 'node:crypto';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { RateLimit } from '../../../src/metadata/types.js';
import type { Session } from '../../../src/session/session.js';

const MINUTE_MS = 60_000;
/** Writes that lost a race to another instance's, tried again before the request is refused. */
const MAX_ATTEMPTS = 20;

/**
 * Counts operations per client and minute in a JetStream KV bucket, so every instance of
 * the cluster sees the same counts (Hasura needs Redis for this). The window slides as
 * Hasura's does, approximated by two fixed minutes: the previous minute's count weighs in
 * by the share of it still inside the last 60 s. Each count is raised by compare-and-set
 * on its revision, so two instances never both take the last place.
 */
export class RateLimiter {
  readonly #kv: () => Promise<KV>;

  constructor(kv: () => Promise<KV>) {
    this.#kv = kv;
  }

  /** Takes `count` places for `client` under `limit` per minute; false when they are not all free. */
  async admit(client: string, limit: number, count: number, now = Date.now()): Promise<boolean> {
    const kv = await this.#kv();
    const id = createHash('sha256').update(client).digest('hex').slice(0, 32);
    const minute = Math.floor(now / MINUTE_MS);
    const before = await kv.get(`${id}.${minute - 1}`);
    const carried = before === null ? 0 : Number(before.string()) * (1 - (now % MINUTE_MS) / MINUTE_MS);
    const key = `${id}.${minute}`;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entry = await kv.get(key);
      const current = entry === null || entry.operation !== 'PUT' ? 0 : Number(entry.string());
      if (carried + current + count > limit) return false;
      try {
        if (entry === null) await kv.create(key, String(current + count));
        else await kv.update(key, String(current + count), entry.revision);
        return true;
      } catch (error) {
        if (!isLostRace(error)) throw error;
      }
    }
    return false;
  }
}

/** Another instance wrote the key first: the create found it, or the update's revision is stale. */
function isLostRace(error: unknown): boolean {
  return error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);
}

/**
 * Whom a rate limit counts: the role, and the client's IP or the values of the listed
 * session variables. The IP is the proxy's word when there is one (`x-real-ip`, then the
 * first `x-forwarded-for` address, as Hasura reads them), else the socket's.
 */
export function rateLimitedClient(rate: RateLimit, session: Session, headers: Record<string, string>, socketAddress: string): string {
  if (rate.unique_params === undefined) return session.role;
  if (rate.unique_params === 'IP') {
    const forwarded = headers['x-forwarded-for']?.split(',')[0]?.trim();
    return `${session.role}\u0000ip\u0000${headers['x-real-ip']?.trim() || forwarded || socketAddress}`;
  }
  return [session.role, 'vars', ...rate.unique_params.map((name) => session.variables[name] ?? '')].join('\u0000');
}
