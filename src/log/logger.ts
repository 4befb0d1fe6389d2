import { pino, type Logger } from 'pino';

export type { Logger };

/** The type of a line that belongs to none of the switchable log types (log-types.ts), as Hasura names it. */
export const UNTYPED_LOG = 'unstructured';

/**
 * The process's root logger; actors and requests log through children of it. Every line
 * carries a `type` (a typed line's own wins: pino lets the logged object override the
 * mixin) and its time as an ISO string, which log scrapers read without a conversion.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime, mixin: () => ({ type: UNTYPED_LOG }) }, destination ?? process.stdout);
}
