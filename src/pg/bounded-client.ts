import type { Logger } from '../log/logger.js';
import type { ServiceError } from '../errors/service-error.js';
import type { Cancellation } from '../request/cancellation.js';
import { tracedClient } from '../tracing/sql.js';
import type { TraceContext } from '../tracing/tracer.js';
import { cancelBackend, terminateBackend } from './cancel.js';
import type { FairShare, Holder } from './fair-share.js';
import type { Pool, PoolClient } from './pool.js';

/** How long a cancelled statement has to stop before its backend is terminated. */
const CANCEL_GRACE_MS = 2_000;

const MAX_TIMER_MS = 2 ** 31 - 1;

/** What bounds the statements of one request. */
export interface RequestBounds {
  /** Cancelled when nobody waits for the answer any more. */
  cancellation?: Cancellation;
  /** When the request's time is up (`Date.now()` clock), and what its caller is told then. */
  deadline: number;
  timeUp: () => ServiceError;
  /** Whose request it is, for the pool's fair share; absent: not counted. */
  holder?: Holder;
  /** The request's trace: each statement gets a span in it. */
  trace?: TraceContext;
}

export interface BoundedPool {
  pool: Pool;
  share: FairShare;
  connectionString: string;
  log: Logger;
}

/**
 * Runs `work` on one pooled connection within the request's bounds. When the time is up
 * or the caller is gone, the statement running is cancelled at once (the protocol's
 * cancel) and `work`'s caller gets the reason without waiting; the connection is
 * discarded once the statement has stopped, so a late cancel can never hit another
 * request's statement. A backend deaf to the cancel is terminated after a grace period.
 * A cancel cannot stop what runs between statements: `work` calls `stillWanted` before
 * each next statement (and before a commit), which throws once the request is over.
 */
export async function withBoundedClient<T>(db: BoundedPool, bounds: RequestBounds, work: (client: PoolClient, stillWanted: () => void) => Promise<T>): Promise<T> {
  const early = bounds.cancellation?.reason ?? (bounds.deadline <= Date.now() ? bounds.timeUp() : null);
  if (early !== null) throw early;

  const stop = new Stop();
  const remaining = bounds.deadline - Date.now();
  // setTimeout takes a longer delay (or none at all) as 1 ms.
  const timer = Number.isFinite(remaining) ? setTimeout(() => stop.fire(bounds.timeUp()), Math.min(remaining, MAX_TIMER_MS)) : undefined;
  const stopListening = bounds.cancellation?.onCancel((reason) => stop.fire(reason));

  const place = bounds.holder === undefined ? null : db.share.enter(bounds.holder);
  let client: PoolClient | null = null;
  let running: Promise<T> | null = null;
  let failed = false;
  // pg-pool stops listening for a checked-out client's errors: a backend that dies meanwhile
  // (terminated, a restart, a failover) would otherwise be an uncaught exception.
  const onClientError = (error: Error) => db.log.warn({ err: error }, 'a database connection failed during a request');
  try {
    if (place !== null) await stop.race(place.ready);
    const connecting = db.pool.connect();
    try {
      client = await stop.race(connecting);
      client.on('error', onClientError);
    } catch (error) {
      // Stopped while waiting for the pool: the connection, when it comes, goes straight back.
      if (stop.reason !== null) connecting.then((late) => late.release(), () => undefined);
      throw error;
    }
    running = work(bounds.trace === undefined ? client : tracedClient(client, bounds.trace), () => {
      if (stop.reason !== null) throw stop.reason;
    });
    try {
      return await stop.race(running);
    } catch (error) {
      failed = true;
      throw error;
    }
  } finally {
    clearTimeout(timer);
    stopListening?.();
    if (client !== null) {
      if (stop.reason === null) {
        place?.leave();
        // Work that failed may have left a transaction open: that connection is not reused.
        release(client, failed, onClientError);
      } else {
        void stopStatement(db, client, running, place, onClientError);
      }
    } else {
      place?.leave();
    }
  }
}

/**
 * Why a request's database work stopped (its deadline, or nobody waiting), and the wait it
 * interrupts. One promise and one reaction per wait, where Promise.race against a promise of
 * the stop made three and kept a fourth for the request's life: this runs for every request.
 */
class Stop {
  reason: ServiceError | null = null;
  #interrupt: ((reason: ServiceError) => void) | null = null;

  /** Stops once: a later call changes nothing. The wait in progress, if any, fails with `reason`. */
  fire(reason: ServiceError): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.#interrupt?.(reason);
  }

  /** `waited`'s outcome, unless the stop comes first (or came already). */
  race<V>(waited: Promise<V>): Promise<V> {
    if (this.reason !== null) return Promise.reject(this.reason);
    return new Promise<V>((resolve, reject) => {
      this.#interrupt = reject;
      waited.then(resolve, reject);
    });
  }
}

function release(client: PoolClient, discard: boolean, onClientError: (error: Error) => void): void {
  client.release(discard);
  client.off('error', onClientError);
}

async function stopStatement(db: BoundedPool, client: PoolClient, running: Promise<unknown> | null, place: { leave(): void } | null, onClientError: (error: Error) => void): Promise<void> {
  const settled = running === null ? Promise.resolve() : running.then(() => undefined, () => undefined);
  try {
    let heeded = false;
    try {
      await cancelBackend(client);
      heeded = await within(settled, CANCEL_GRACE_MS);
      if (!heeded) db.log.warn({ grace_ms: CANCEL_GRACE_MS }, 'a cancelled statement kept running; terminating its backend');
    } catch (error) {
      db.log.warn({ err: error }, 'could not send a cancel request; terminating the backend instead');
    }
    if (!heeded) {
      await terminateBackend(db.connectionString, client);
      await settled;
    }
  } catch (error) {
    // Neither cancel nor terminate reached the server: the statement may still run, so its share stays taken until it ends.
    db.log.error({ err: error }, 'could not stop a statement whose request was over');
    await settled;
  } finally {
    place?.leave();
    release(client, true, onClientError);
  }
}

/** Whether `promise` settles within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
