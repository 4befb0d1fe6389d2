import { write, writeSync } from 'node:fs';

export interface BatchedOutputOptions {
  /** Lines are written once this many characters wait... */
  batchChars: number;
  /** ...or this long after the last write, whichever is first. */
  flushMs: number;
  /** Characters held while the file descriptor is not taking them; lines beyond are dropped. */
  maxPendingChars: number;
}

/** How long a write that met a full non-blocking pipe (EAGAIN) waits before it is tried again. */
const RETRY_MS = 20;

/**
 * Log lines written to a file descriptor in batches, off the event loop (each write runs on
 * libuv's thread pool), with at most one write in flight. Lines wait in an array and are
 * joined once per write: pino's own destination appended each line to one growing string
 * and measured that string's UTF-8 length on every line, which at a few thousand request
 * lines a second cost more than the lines themselves. What waits is written synchronously
 * when the process exits.
 */
export class BatchedOutput {
  readonly #fd: number;
  readonly #options: BatchedOutputOptions;
  #lines: string[] = [];
  #pendingChars = 0;
  #writing = false;
  readonly #timer: NodeJS.Timeout;

  constructor(fd: number, options: BatchedOutputOptions) {
    this.#fd = fd;
    this.#options = options;
    this.#timer = setInterval(() => this.#flush(), options.flushMs).unref();
    process.once('exit', () => this.flushSync());
  }

  /** Takes one line (pino's destination interface). */
  write(line: string): void {
    if (this.#pendingChars + line.length > this.#options.maxPendingChars) return;
    this.#lines.push(line);
    this.#pendingChars += line.length;
    if (this.#pendingChars >= this.#options.batchChars) this.#flush();
  }

  /** Writes what waits, blocking: for the process's last moment. */
  flushSync(): void {
    clearInterval(this.#timer);
    const bytes = this.#take();
    for (let offset = 0; offset < bytes.length; ) {
      try {
        offset += writeSync(this.#fd, bytes, offset, bytes.length - offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      }
    }
  }

  #flush(): void {
    if (this.#writing || this.#lines.length === 0) return;
    this.#writing = true;
    this.#writeFrom(this.#take(), 0);
  }

  #take(): Buffer {
    const bytes = Buffer.from(this.#lines.join(''));
    this.#lines = [];
    this.#pendingChars = 0;
    return bytes;
  }

  #writeFrom(bytes: Buffer, offset: number): void {
    write(this.#fd, bytes, offset, bytes.length - offset, null, (error, written) => {
      if (error !== null) {
        if (error.code === 'EAGAIN') {
          setTimeout(() => this.#writeFrom(bytes, offset), RETRY_MS).unref();
          return;
        }
        // Standard output is gone (a closed pipe): nothing more can be written there.
        this.#writing = false;
        return;
      }
      if (offset + written < bytes.length) {
        this.#writeFrom(bytes, offset + written);
        return;
      }
      this.#writing = false;
      if (this.#pendingChars >= this.#options.batchChars) this.#flush();
    });
  }
}
