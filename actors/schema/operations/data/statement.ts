import { databaseError } from '../../../../src/errors/database.js';
import { ServiceError } from '../../../../src/errors/service-error.js';
import type { Metadata } from '../../../../src/metadata/types.js';
import { compileContext } from '../../sql/context.js';
import type { Input } from '../../sql/input.js';
import type { MutationContext } from '../../sql/mutation-context.js';
import { bindParams } from '../../sql/params.js';
import type { OperationContext } from '../operation.js';
import type { DataAccess } from './access.js';

/**
 * One data API statement: compiled with the GraphQL compiler's context (so `where` and
 * permission filters compile exactly as for GraphQL, every value a parameter), run where
 * the request runs it, its one JSON text column built by PostgreSQL.
 */
export function statementContext(access: DataAccess, metadata: Metadata): MutationContext {
  // Writes also emit the session for event triggers only when some exist (as mutation-plan.ts).
  const emitSessionMessage = (metadata.sources[0]?.tables ?? []).some((entry) => (entry.event_triggers ?? []).length > 0);
  return { ...compileContext({ model: access.model, access: access.read, fragments: new Map(), variables: {} }), writes: access.writes, emitSessionMessage, emitTraceMessage: false };
}

/** A value of the request's args as compiler input: every value becomes a constant parameter. */
export function argInput(value: unknown, path: string): Input {
  return { source: 'variable', value, path };
}

export interface StatementRow {
  json: string;
  check_ok?: boolean | null;
}

/** Runs the statement as the session (its variables bound to the permission's parameters); errors point at `argsPath`. */
export async function runStatement(context: OperationContext, statement: MutationContext, sql: string): Promise<StatementRow> {
  let values: unknown[];
  try {
    values = bindParams(statement.params.sources, {}, context.session.variables);
  } catch (error) {
    throw error instanceof ServiceError ? error.atPath(context.argsPath) : error;
  }
  try {
    const result = await context.reader().query<StatementRow>({ text: sql, values });
    return result.rows[0]!;
  } catch (error) {
    throw databaseError(error, { sql, values }).atPath(context.argsPath);
  }
}
