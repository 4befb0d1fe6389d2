import { pino, type DestinationStream, type Logger } from 'pino';
import { BatchedOutput } from './batched-output.js';

export type { Logger };

/** The type of a line that belongs to none of the switchable log types (log-types.ts), as Hasura names it. */
export const UNTYPED_LOG = 'unstructured';

/**
 * The process's root logger; actors and requests log through children of it. Every line
 * carries a `type` (a typed line's own wins: pino lets the logged object override the
 * mixin) and its time as an ISO string, which log scrapers read without a conversion.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, base: { pid: process.pid }, timestamp: isoTime, mixin: () => ({ type: UNTYPED_LOG }), mixinMergeStrategy: withType }, destination ?? standardOutput());
}

/**
 * A typed line (log-types.ts puts `type` first) is logged as it is: pino's own strategy
 * would copy each of its fields onto the mixin's object, a copy per request line. The
 * output is the same either way: `type` first, then the line's fields.
 */
function withType(line: object, mixin: object): object {
  return (line as { type?: unknown }).type === undefined ? Object.assign(mixin, line) : line;
}

let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * pino's isoTime (`,"time":"<ISO 8601>"`) without a Date per line: the text up to the
 * seconds is made once a second, the milliseconds appended.
 */
export function isoTime(now = Date.now()): string {
  const millis = now % 1000;
  const second = now - millis;
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = `,"time":"${new Date(second).toISOString().slice(0, 20)}`;
  }
  return `${isoPrefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z"`;
}

/**
 * Log characters held while standard output is not taking them (a stalled log collector):
 * beyond this, lines are dropped rather than the process's memory growing without end.
 */
const PENDING_LOG_CHARS = 16 * 1024 * 1024;

/** Lines are written once this many characters wait (about forty request lines)... */
const LOG_BATCH_CHARS = 16 * 1024;

/** ...or this long after they came, whichever is first. */
const LOG_FLUSH_MS = 50;

/** One writer for the process, however many loggers: two would interleave their batches. */
let stdout: BatchedOutput | undefined;

/**
 * Standard output written asynchronously, in batches (batched-output.ts). Each write is a
 * system call run on libuv's thread pool, whose hand-over and wake-ups cost more than the
 * line itself: a write per request line cost 20-35 µs of CPU a request. A line waits at most
 * LOG_FLUSH_MS, and what waits is written when the process exits.
 */
function standardOutput(): DestinationStream {
  return (stdout ??= new BatchedOutput(1, { batchChars: LOG_BATCH_CHARS, flushMs: LOG_FLUSH_MS, maxPendingChars: PENDING_LOG_CHARS }));
}
