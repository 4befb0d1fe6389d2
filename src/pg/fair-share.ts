/** Who a connection is held for: the role, and the session within it (none: only the role's share applies). */
export interface Holder {
  role: string;
  session?: string;
}

interface Waiter {
  holder: Holder;
  resolve(): void;
}

/** A place in the share: taken once `ready` resolves; `leave` gives it back (or stops waiting for it). */
export interface Place {
  readonly ready: Promise<void>;
  leave(): void;
}

/**
 * Keeps one role, or one session, from holding every connection of a pool: each may hold
 * at most its share at once, and its further requests wait in line behind its own,
 * while everybody else's go straight to the pool. A session whose statements wait on a
 * lock then stalls itself, not the others (issue 14, "fair pools").
 */
export class FairShare {
  readonly #perRole: number;
  readonly #perSession: number;
  readonly #roles = new Map<string, number>();
  readonly #sessions = new Map<string, number>();
  readonly #waiting: Waiter[] = [];

  constructor(poolSize: number, shares: { rolePercent: number; sessionPercent: number }) {
    this.#perRole = Math.max(1, Math.floor((poolSize * shares.rolePercent) / 100));
    this.#perSession = Math.max(1, Math.floor((poolSize * shares.sessionPercent) / 100));
  }

  /** How many are waiting for their share (for the heartbeat). */
  get waiting(): number {
    return this.#waiting.length;
  }

  enter(holder: Holder): Place {
    if (this.#fits(holder)) {
      this.#take(holder);
      return { ready: Promise.resolve(), leave: () => this.#give(holder) };
    }
    let admitted = false;
    let left = false;
    const waiter: Waiter = { holder, resolve: () => undefined };
    const ready = new Promise<void>((resolve) => {
      waiter.resolve = () => {
        admitted = true;
        resolve();
      };
    });
    this.#waiting.push(waiter);
    return {
      ready,
      leave: () => {
        if (left) return;
        left = true;
        if (admitted) this.#give(holder);
        else this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
      },
    };
  }

  #fits(holder: Holder): boolean {
    if ((this.#roles.get(holder.role) ?? 0) >= this.#perRole) return false;
    return holder.session === undefined || (this.#sessions.get(holder.session) ?? 0) < this.#perSession;
  }

  #take(holder: Holder): void {
    this.#roles.set(holder.role, (this.#roles.get(holder.role) ?? 0) + 1);
    if (holder.session !== undefined) this.#sessions.set(holder.session, (this.#sessions.get(holder.session) ?? 0) + 1);
  }

  #give(holder: Holder): void {
    decrement(this.#roles, holder.role);
    if (holder.session !== undefined) decrement(this.#sessions, holder.session);
    // First come, first served among those whose share has room again.
    for (let index = 0; index < this.#waiting.length; ) {
      const waiter = this.#waiting[index]!;
      if (!this.#fits(waiter.holder)) {
        index++;
        continue;
      }
      this.#waiting.splice(index, 1);
      this.#take(waiter.holder);
      waiter.resolve();
    }
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 0) - 1;
  if (count <= 0) counts.delete(key);
  else counts.set(key, count);
}
