import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from 'pg-logical-replication';
import type { Logger } from '../../../src/log/logger.js';
import { triggerViewText } from '../../../src/metadata/trigger-view.js';
import { relationKey } from '../../../src/pg/catalog.js';
import { SESSION_MESSAGE_PREFIX, TRACE_MESSAGE_PREFIX } from '../../../src/pg/replication/names.js';
import { formatLsn, parseLsn } from './lsn.js';

/** What the reader hands on: one row change of a committed transaction, values as text. */
export interface RowChange {
  op: 'INSERT' | 'UPDATE' | 'DELETE';
  schema: string;
  table: string;
  columns: readonly { name: string; typeOid: number }[];
  old: Record<string, string | null> | null;
  new: Record<string, string | null> | null;
}

export interface TransactionInfo {
  commitLsn: string;
  /** Microseconds since the Unix epoch. */
  commitTime: bigint;
  /** Position of the change in its transaction (deterministic: the WAL decodes the same way again). */
  ordinal: number;
  /** The JSON text of the transaction's `service.session` message, if it sent one before this change. */
  session: string | null;
  /** The `traceparent` of the traced request that wrote it (`service.trace` message), if any. */
  traceParent: string | null;
}

export interface ChangeSink {
  /** A transaction starts: whatever the sink holds of one read only in part (the reader stopped mid-way) is dropped. */
  begin(): void;
  /** Returns the stores of the change's events; the commit is confirmed once all have resolved. */
  change(change: RowChange, transaction: TransactionInfo): Promise<unknown>[];
  /** The transaction whose changes were just handed on committed: what the sink holds of it goes out now. */
  commit(): void;
  /** Events whose stores wait for more of their transaction (counted unstored, never the reason to pause: pausing would keep them waiting). */
  readonly held: number;
}

/** Above this many unstored events the replication socket is paused; below the low mark it resumes. */
const PAUSE_ABOVE = 5_000;
const RESUME_BELOW = 1_000;
const STATUS_INTERVAL_MS = 200;
/** How often an idle reader asks for a keepalive, whose LSN then moves the slot forward. */
const PING_INTERVAL_MS = 1_000;

interface Confirmation {
  lsn: bigint;
  done: boolean;
}

interface OpenTransaction {
  commitLsn: string;
  commitTime: bigint;
  ordinal: number;
  session: string | null;
  traceParent: string | null;
  stores: Promise<unknown>[];
  /** The tables it changed, for the change feed: their keys are made at the commit, not per change. */
  tables: Set<Pgoutput.MessageRelation>;
}

/**
 * Reads the slot with pgoutput and confirms an LSN to PostgreSQL only when every event
 * of every transaction up to it is stored in JetStream. The library's automatic
 * acknowledgement is off, its 10 s timer too (it would confirm the last LSN *received*):
 * a crash then replays from the last stored transaction, and the stream drops the copies.
 */
export class ReplicationReader {
  readonly #service: LogicalReplicationService;
  readonly #confirmations: Confirmation[] = [];
  #open: OpenTransaction | null = null;
  #confirmed = 0n;
  #sent = 0n;
  #unstored = 0;
  #paused = false;
  #timers: NodeJS.Timeout[] = [];
  #stopped = false;
  readonly #ended: Promise<void>;

  constructor(
    private readonly options: {
      connectionString: string;
      slot: string;
      publication: string;
      sink: ChangeSink;
      /**
       * A change to the metadata row, in WAL order (the JSON text of its trigger view, or of
       * the whole metadata when the row holds no current view; the commit LSN of its
       * transaction); what it returns is stored before that commit is confirmed.
       */
      onMetadata: (json: string, commitLsn: bigint) => Promise<unknown>;
      isMetadataTable: (schema: string, table: string) => boolean;
      /** Every committed transaction: the tables (relation keys) it changed, and its commit LSN. */
      onCommit: (tables: readonly string[], commitLsn: string) => void;
      /** The slot's confirmed_flush_lsn when reading starts: status updates never go below it. */
      startLsn: bigint;
      log: Logger;
    },
  ) {
    this.#confirmed = options.startLsn;
    this.#sent = options.startLsn;
    this.#service = new LogicalReplicationService(
      { connectionString: options.connectionString, application_name: 'service-graphql-events' },
      { acknowledge: { auto: false, timeoutSeconds: 0 }, flowControl: { enabled: false } },
    );
    this.#service.on('data', (lsn: string, message: Pgoutput.Message) => this.#onMessage(lsn, message));
    this.#service.on('heartbeat', (lsn: string, _timestamp: number, shouldRespond: boolean) => this.#onKeepalive(lsn, shouldRespond));
    const plugin = new PgoutputPlugin({ protoVersion: 1, publicationNames: [options.publication], messages: true });
    this.#ended = new Promise<void>((resolve, reject) => {
      this.#service.on('error', (error: Error) => reject(error));
      this.#service.subscribe(plugin, options.slot).then(() => resolve(), reject);
    });
    this.#ended.catch(() => undefined);
    this.#timers.push(setInterval(() => this.#sendStatus(false), STATUS_INTERVAL_MS));
    this.#timers.push(setInterval(() => this.#ping(), PING_INTERVAL_MS));
  }

  /** Settles when the replication connection ends: rejected on an error (PostgreSQL restarting, say). */
  get ended(): Promise<void> {
    return this.#ended;
  }

  get unstored(): number {
    return this.#unstored;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#sendStatus(true);
    await this.#service.destroy().catch(() => undefined);
  }

  #onMessage(lsn: string, message: Pgoutput.Message): void {
    switch (message.tag) {
      case 'begin':
        this.options.sink.begin();
        this.#open = { commitLsn: message.commitLsn ?? lsn, commitTime: message.commitTime as bigint, ordinal: 0, session: null, traceParent: null, stores: [], tables: new Set() };
        return;
      case 'relation':
        // Values stay PostgreSQL text: the library would parse them with pg's global
        // parsers (Dates, floats), losing the forms to_json writes. Patching the cached
        // relation works because the library parses each message only after the previous
        // one was handled (flow control off: synchronous).
        for (const column of message.columns) column.parser = (raw: unknown) => raw;
        return;
      case 'message':
        if (this.#open !== null && message.transactional && message.prefix === SESSION_MESSAGE_PREFIX) {
          this.#open.session = sessionJson(Buffer.from(message.content).toString('utf8'));
        } else if (this.#open !== null && message.transactional && message.prefix === TRACE_MESSAGE_PREFIX) {
          this.#open.traceParent = traceParentOf(Buffer.from(message.content).toString('utf8'));
        }
        return;
      case 'insert':
      case 'update':
      case 'delete':
        this.#onChange(message);
        return;
      case 'truncate':
        for (const relation of message.relations) this.#open?.tables.add(relation);
        return;
      case 'commit':
        this.#onCommit(message.commitEndLsn ?? lsn);
        return;
      default:
        return;
    }
  }

  #onChange(message: Pgoutput.MessageInsert | Pgoutput.MessageUpdate | Pgoutput.MessageDelete): void {
    const open = this.#open;
    if (open === null) return;
    const relation = message.relation;
    const ordinal = open.ordinal++;
    if (this.options.isMetadataTable(relation.schema, relation.name)) {
      const row = message.tag === 'delete' ? null : (message.new as Record<string, string | null>);
      const view = row === null ? null : triggerViewText(row);
      if (view !== null) this.#track(open, this.options.onMetadata(view, parseLsn(open.commitLsn)));
      return;
    }
    const change: RowChange = {
      op: message.tag === 'insert' ? 'INSERT' : message.tag === 'update' ? 'UPDATE' : 'DELETE',
      schema: relation.schema,
      table: relation.name,
      columns: relation.columns,
      old: message.tag === 'insert' ? null : ((message.old ?? message.key) as Record<string, string | null> | null),
      new: message.tag === 'delete' ? null : (message.new as Record<string, string | null>),
    };
    open.tables.add(relation);
    const stores = this.options.sink.change(change, { commitLsn: open.commitLsn, commitTime: open.commitTime, ordinal, session: open.session, traceParent: open.traceParent });
    for (const store of stores) this.#track(open, store);
  }

  /** The transaction's commit is confirmed only once `store` resolved. */
  #track(open: OpenTransaction, store: Promise<unknown>): void {
    this.#unstored++;
    open.stores.push(store);
    void store.then(
      () => this.#stored(),
      () => this.#stored(),
    );
    if (this.#unstored - this.options.sink.held > PAUSE_ABOVE && !this.#paused) this.#setPaused(true);
  }

  #stored(): void {
    this.#unstored--;
    if (this.#paused && this.#unstored - this.options.sink.held < RESUME_BELOW) this.#setPaused(false);
  }

  #onCommit(endLsn: string): void {
    const open = this.#open;
    this.#open = null;
    if (open !== null) this.options.sink.commit();
    if (open !== null && open.tables.size > 0) this.options.onCommit([...new Set([...open.tables].map((relation) => relationKey(relation.schema, relation.name)))], open.commitLsn);
    const confirmation: Confirmation = { lsn: parseLsn(endLsn), done: false };
    this.#confirmations.push(confirmation);
    if (open === null || open.stores.length === 0) {
      confirmation.done = true;
      this.#advance();
      return;
    }
    Promise.all(open.stores).then(
      () => {
        confirmation.done = true;
        this.#advance();
      },
      // A store fails only when the reader stops: the transaction stays unconfirmed and
      // is read again by whoever reads the slot next.
      () => undefined,
    );
  }

  /**
   * A keepalive's LSN is how far the server has sent: with no transaction half-received,
   * everything before it is either stored or queued before this mark, so confirming it
   * (in order) moves the slot past WAL of other tables and databases.
   */
  #onKeepalive(lsn: string, shouldRespond: boolean): void {
    if (this.#open === null) {
      this.#confirmations.push({ lsn: parseLsn(lsn), done: true });
      this.#advance();
    }
    if (shouldRespond) this.#sendStatus(true);
  }

  #advance(): void {
    while (this.#confirmations.length > 0 && this.#confirmations[0]!.done) {
      const { lsn } = this.#confirmations.shift()!;
      if (lsn > this.#confirmed) this.#confirmed = lsn;
    }
  }

  /** The library reports `lsn + 1` as flushed; we hand it one less so PostgreSQL gets exactly the LSN we mean. */
  #sendStatus(force: boolean): void {
    if (this.#confirmed === 0n || (!force && this.#confirmed === this.#sent)) return;
    this.#sent = this.#confirmed;
    void this.#service.acknowledge(formatLsn(this.#confirmed - 1n)).catch(() => undefined);
  }

  #ping(): void {
    if (this.#open !== null || this.#confirmations.length > 0 || this.#confirmed === 0n) return;
    void this.#service.acknowledge(formatLsn(this.#confirmed - 1n), true).catch(() => undefined);
  }

  #setPaused(paused: boolean): void {
    // The library exposes no pause; its pg connection's socket is the one place backpressure can act.
    const stream = (this.#service as unknown as { _connection?: { stream?: { pause(): void; resume(): void } } })._connection?.stream;
    if (stream === undefined) return;
    this.#paused = paused;
    if (paused) stream.pause();
    else stream.resume();
  }
}

/** The session message's text if it is a JSON object (anything else is not ours: no session). */
function sessionJson(text: string): string | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? text : null;
  } catch {
    return null;
  }
}

/** A W3C traceparent (version 00), or nothing: any role may emit a `service.trace` message, and its text becomes a NATS header. */
const TRACEPARENT_FORM = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

function traceParentOf(text: string): string | null {
  return TRACEPARENT_FORM.test(text) ? text : null;
}
