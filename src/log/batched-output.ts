import { write, writeSync } from 'node:fs';

/** The two writes a batched output makes on its file descriptor: node:fs's, or a test's script of them. */
export interface DescriptorWrites {
  write: typeof write;
  writeSync: typeof writeSync;
}

export interface BatchedOutputOptions {
  /** Lines are written once this many characters wait... */
  batchChars: number;
  /** ...or at most this long after a line came. */
  flushMs: number;
  /** Characters held while the file descriptor is not taking them; lines beyond are dropped. */
  maxPendingChars: number;
  /** node:fs's unless given. */
  writes?: DescriptorWrites;
}

/** How long a write that met a full non-blocking pipe (EAGAIN) waits before it is tried again. */
const RETRY_MS = 20;

/** How long the last, blocking write at exit keeps trying a pipe nobody reads, before it gives up. */
const EXIT_WRITE_GIVE_UP_MS = 2_000;

/** What the blocking write at exit waits on between tries: nothing ever wakes it early. */
const EXIT_PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** A batch being written: its bytes and how far the writes have got. */
interface Batch {
  bytes: Buffer;
  offset: number;
}

/**
 * Log lines written to a file descriptor in batches, off the event loop (each write runs on
 * libuv's thread pool), with at most one write in flight. Lines wait in an array and are
 * joined once per write: pino's own destination appended each line to one growing string
 * and measured that string's UTF-8 length on every line, which at a few thousand request
 * lines a second cost more than the lines themselves. When the process exits, what waits is
 * written synchronously, after the rest of a batch that met a full pipe; a batch the thread
 * pool is writing at that moment is the thread pool's to finish.
 */
export class BatchedOutput {
  readonly #fd: number;
  readonly #options: BatchedOutputOptions;
  readonly #writes: DescriptorWrites;
  #lines: string[] = [];
  #pendingChars = 0;
  #writing = false;
  /** A batch whose write met a full pipe, and the timer that tries it again. */
  #retry: { batch: Batch; timer: NodeJS.Timeout } | null = null;
  readonly #timer: NodeJS.Timeout;

  constructor(fd: number, options: BatchedOutputOptions) {
    this.#fd = fd;
    this.#options = options;
    this.#writes = options.writes ?? { write, writeSync };
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

  /** Writes what waits, blocking: for the process's last moment. Gives up on a pipe nobody reads. */
  flushSync(): void {
    clearInterval(this.#timer);
    const batches: Batch[] = [];
    if (this.#retry !== null) {
      clearTimeout(this.#retry.timer);
      batches.push(this.#retry.batch);
      this.#retry = null;
    }
    batches.push({ bytes: this.#take(), offset: 0 });
    const giveUpAt = Date.now() + EXIT_WRITE_GIVE_UP_MS;
    for (const batch of batches) {
      while (batch.offset < batch.bytes.length) {
        try {
          batch.offset += this.#writes.writeSync(this.#fd, batch.bytes, batch.offset, batch.bytes.length - batch.offset);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() >= giveUpAt) return;
          Atomics.wait(EXIT_PAUSE, 0, 0, RETRY_MS);
        }
      }
    }
  }

  #flush(): void {
    if (this.#writing || this.#lines.length === 0) return;
    this.#writing = true;
    this.#writeFrom({ bytes: this.#take(), offset: 0 });
  }

  #take(): Buffer {
    const bytes = Buffer.from(this.#lines.join(''));
    this.#lines = [];
    this.#pendingChars = 0;
    return bytes;
  }

  #writeFrom(batch: Batch): void {
    this.#writes.write(this.#fd, batch.bytes, batch.offset, batch.bytes.length - batch.offset, null, (error, written) => {
      if (error !== null) {
        if (error.code === 'EAGAIN') {
          const timer = setTimeout(() => {
            this.#retry = null;
            this.#writeFrom(batch);
          }, RETRY_MS).unref();
          this.#retry = { batch, timer };
          return;
        }
        // Standard output is gone (a closed pipe): nothing more can be written there.
        this.#writing = false;
        return;
      }
      batch.offset += written;
      if (batch.offset < batch.bytes.length) {
        this.#writeFrom(batch);
        return;
      }
      this.#writing = false;
      if (this.#pendingChars >= this.#options.batchChars) this.#flush();
    });
  }
}
