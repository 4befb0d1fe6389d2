import type { ServiceError } from '../../../src/errors/service-error.js';
import { SESSION_MESSAGE_PREFIX, TRACE_MESSAGE_PREFIX } from '../../../src/pg/replication/names.js';
import type { MutationContext } from './mutation-context.js';
import type { ParamSource } from './params.js';
import { statementName } from './sql-text.js';

/**
 * What a mutation operation compiles to. Hasura runs one statement per mutation field;
 * so do we, each field's writes and its answer in ONE statement of data-modifying CTEs,
 * all fields in order in one transaction. Two exceptions take more than one statement:
 * - a nested insert: its writes, then a read-back of the written rows (by `ctid`) for the
 *   checks and `returning`, since rows written by a CTE are invisible to the rest of the
 *   same statement and a returned relationship may point at one of them;
 * - `update_<t>_many`: one statement per update, each seeing the ones before it.
 */
export interface MutationStep {
  sql: string;
  /** The prepared statement's name: a hash of its text (as plan-cache.ts names queries). */
  name: string;
  params: ParamSource[];
  /** The step's row is handed to the next step (its columns as `carried` parameters) rather than answered. */
  carries: boolean;
  /** The step returns `check_ok`: a permission check that may fail and must roll back. */
  checked: boolean;
  /**
   * Errors the step may end in: it returns `failure`, null or the index of the one that
   * happened, and the request then fails and rolls back (a nested insert whose related
   * row was not written, insert.ts).
   */
  failures: ServiceError[];
}


export interface MutationFieldPlan {
  responseKey: string;
  /** Where an error of this field points (`$.selectionSet.insert_author_one.args.object`). */
  errorPath: string;
  steps: MutationStep[];
  /** `update_<t>_many`: every answering step's data, gathered in a list. */
  list: boolean;
  /** JSON known without the database (`__typename`). */
  staticJson: string | null;
}

/** `service.user` is set by every writing statement, before it writes (see `writeStatement`). */
const SESSION_SETTING = 'service.user';

/**
 * A writing statement: `with <ctes> select <outputs> from (<session>) as "_session"`. The
 * session subquery also emits the logical decoding message event trigger capture reads
 * the session from (`SESSION_MESSAGE_PREFIX`), when triggers exist.
 * The session subquery is scanned before the outputs are projected, and the outputs are
 * what first reads the CTEs, so `service.user` is set (transaction-local) before any row
 * is written and any BEFORE trigger runs; AFTER triggers run at the statement's end.
 */
export function writeStatement(context: MutationContext, ctes: readonly string[], outputs: ReadonlyArray<readonly [string, string]>): string {
  const session = context.params.add({ kind: 'session-json' }, 'text');
  const sessionMessage = context.emitSessionMessage ? `, pg_logical_emit_message(true, '${SESSION_MESSAGE_PREFIX}', ${session})` : '';
  // pg_logical_emit_message is strict: a request that is not traced (null) emits nothing.
  const traceMessage = context.emitTraceMessage ? `, pg_logical_emit_message(true, '${TRACE_MESSAGE_PREFIX}', ${context.params.add({ kind: 'trace-parent' }, 'text')})` : '';
  const message = sessionMessage + traceMessage;
  const columns = outputs.map(([name, expression]) => `${expression} as "${name}"`).join(', ');
  return `${ctes.length === 0 ? '' : `with ${ctes.join(', ')} `}select ${columns} from (select set_config('${SESSION_SETTING}', ${session}, true)${message}) as "_session"`;
}

export function step(context: MutationContext, sql: string, options: { carries?: boolean; checked?: boolean; failures?: ServiceError[] } = {}): MutationStep {
  return { sql, name: statementName(sql), params: context.params.sources, carries: options.carries ?? false, checked: options.checked ?? false, failures: options.failures ?? [] };
}
