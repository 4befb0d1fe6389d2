import type { KV } from '@nats-io/kv';
import { encodeJson } from '../../../src/bus/wire.js';

/** A lease not renewed for this long expires in the bucket (its max age), and another instance may take it. */
export const LEASE_TTL_MS = 5_000;
/** Renewal (and, for the others, take-over attempts) every this often. */
export const LEASE_RENEW_MS = 1_000;
const KEY = 'replication-slot';

/**
 * Who reads the replication slot: a key in JetStream KV (`<p>_leases`), created by the
 * one instance that gets it and renewed with revision-checked updates. A renewal that
 * fails on the revision means someone else holds it now; one that cannot reach NATS for
 * longer than the TTL means it may have expired: either way the holder stops reading.
 * PostgreSQL lets one connection stream a slot at a time, so even a stale holder cannot
 * read alongside the new one.
 */
export class ReplicationLease {
  #revision: number | null = null;
  #renewedAt = 0;

  constructor(
    private readonly kv: KV,
    private readonly instance: string,
  ) {}

  get held(): boolean {
    return this.#revision !== null && Date.now() - this.#renewedAt < LEASE_TTL_MS - LEASE_RENEW_MS;
  }

  /** Takes the lease if nobody holds it, or renews ours; returns whether we hold it now. */
  async tick(): Promise<boolean> {
    const value = encodeJson({ instance: this.instance, at: new Date().toISOString() });
    try {
      if (this.#revision === null) {
        this.#revision = await this.kv.create(KEY, value);
      } else {
        this.#revision = await this.kv.update(KEY, value, this.#revision);
      }
      this.#renewedAt = Date.now();
    } catch (error) {
      // Taken by someone else (create or revision check failed), or NATS unreachable.
      if (this.#revision !== null && isWrongRevision(error)) this.#revision = null;
      if (this.#revision !== null && !this.held) this.#revision = null;
    }
    return this.held;
  }

  /** Gives the lease up at once (a clean stop), so another instance need not wait for the TTL. */
  async release(): Promise<void> {
    const revision = this.#revision;
    this.#revision = null;
    if (revision === null) return;
    await this.kv.delete(KEY, { previousSeq: revision }).catch(() => undefined);
  }
}

function isWrongRevision(error: unknown): boolean {
  return /wrong last sequence|key exists/i.test(String((error as Error)?.message ?? error));
}
