import { pino, type Logger } from 'pino';

export type { Logger };

/** The process's root logger; actors and requests log through children of it. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, base: { pid: process.pid } }, destination ?? process.stdout);
}
