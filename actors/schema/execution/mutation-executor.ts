import { encodeText } from '../../../src/bus/wire.js';
import { graphqlErrorBody } from '../../../src/errors/bodies.js';
import { errors } from '../../../src/errors/errors.js';
import { withBoundedClient, type BoundedPool, type RequestBounds } from '../../../src/pg/bounded-client.js';
import type { PoolClient } from '../../../src/pg/pool.js';
import { queryNamed } from '../../../src/pg/prepared-statements.js';
import { ServiceError } from '../../../src/errors/service-error.js';
import { isAdmin, type Session } from '../../../src/session/session.js';
import type { OperationFacts } from '../../../src/log/operation-facts.js';
import { compileMutation, type CompiledMutation, type MutationRequest } from '../sql/mutation.js';
import type { MutationStep } from '../sql/mutation-plan.js';
import { bindParams } from '../sql/params.js';
import { databaseError } from '../../../src/errors/database.js';
import { planFor } from './plan-cache.js';
import { compileErrorBody } from './response-errors.js';

/** Compiled mutation plans of a prepared document, by variable shape (as plan-cache.ts keeps queries). */
const plansByDocument = new WeakMap<object, CompiledMutation[]>();

export interface MutationExecution {
  /** The prepared document the plans are cached under. */
  document: object;
  request: Omit<MutationRequest, 'variables'>;
  variables: Record<string, unknown>;
  session: Session;
  db: BoundedPool;
  bounds: RequestBounds;
  /** Where the request's statements and SQL time are told to its log lines. */
  facts?: OperationFacts;
  /** The request's W3C traceparent, emitted for the events its writes cause. */
  traceParent?: string;
}

/**
 * Runs a mutation operation: every root field in order, in ONE transaction, rolled back
 * whole on the first failure (a database error or a failed permission check). A request
 * of one statement with no check runs without BEGIN/COMMIT: a single statement is its
 * own transaction, which saves two round trips on the commonest mutation.
 */
export async function executeMutation(execution: MutationExecution): Promise<Uint8Array> {
  const { session, variables } = execution;
  let plan: CompiledMutation;
  try {
    plan = planOf(execution);
  } catch (error) {
    const refused = compileErrorBody(error);
    if (refused === null) throw error;
    return refused;
  }

  const runs: Array<{ step: MutationStep; field: number }> = plan.fields.flatMap((field, index) => field.steps.map((step) => ({ step, field: index })));
  const answers: string[][] = plan.fields.map(() => []);
  let carried: Record<string, unknown> = {};
  const values = (step: MutationStep) => bindParams(step.params, variables, session.variables, carried, execution.traceParent ?? null);
  // PostgreSQL's detail and the statement (`internal`) are for the admin role only.
  const errorBody = (error: ServiceError) => graphqlErrorBody([error], isAdmin(session));
  const facts = execution.facts;
  for (const { step } of runs) facts?.statements.push(step.sql);
  const sqlStarted = performance.now();

  try {
    if (runs.length === 1 && !runs[0]!.step.checked && runs[0]!.step.failures.length === 0) {
      const { step, field } = runs[0]!;
      const result = await withBoundedClient(execution.db, execution.bounds, (client) => runStep(client, step, values(step), plan.fields[field]!.errorPath));
      if ('error' in result) return errorBody(result.error);
      answers[field]!.push(result.row.data as string);
    } else if (runs.length > 0) {
      const failure = await withBoundedClient(execution.db, execution.bounds, async (client, stillWanted) => {
        let failure: ServiceError | null = null;
        await client.query('begin');
        for (const { step, field } of runs) {
          stillWanted();
          const errorPath = plan.fields[field]!.errorPath;
          const result = await runStep(client, step, values(step), errorPath);
          if ('error' in result) {
            failure = result.error;
            break;
          }
          const failed = result.row.failure;
          if (failed !== null && failed !== undefined) {
            failure = step.failures[failed as number]!;
            break;
          }
          if (step.carries) {
            carried = result.row;
            continue;
          }
          carried = {};
          if (result.row.check_ok === false) {
            failure = errors.permissionCheckFailed(errorPath);
            break;
          }
          answers[field]!.push(result.row.data as string);
        }
        if (failure === null) stillWanted();
        await client.query(failure === null ? 'commit' : 'rollback');
        return failure;
      });
      if (failure !== null) return errorBody(failure);
    }
  } catch (error) {
    // The request's bounds (its time is up), a session variable the binding missed, or the
    // connection itself (a statement's own error is a `failure` above).
    if (error instanceof ServiceError) return errorBody(error);
    return errorBody(databaseError(error, { sql: 'begin', values: [] }));
  } finally {
    if (facts !== undefined) facts.sqlMs += performance.now() - sqlStarted;
  }

  // Postgres built each field's JSON; it is spliced in unparsed, as queries are.
  const data = plan.fields.map((field, index) => {
    const parts = answers[index]!;
    const json = field.staticJson ?? (field.list ? `[${parts.join(',')}]` : parts[0]!);
    return `${JSON.stringify(field.responseKey)}:${json}`;
  });
  return encodeText(`{"data":{${data.join(',')}}}`);
}

function planOf(execution: MutationExecution): CompiledMutation {
  let plans = plansByDocument.get(execution.document);
  if (plans === undefined) {
    plans = [];
    plansByDocument.set(execution.document, plans);
  }
  return planFor(plans, execution.variables, () => compileMutation({ ...execution.request, variables: execution.variables }));
}

type StepResult = { row: Record<string, unknown> } | { error: ServiceError };

async function runStep(db: PoolClient, step: MutationStep, values: unknown[], errorPath: string): Promise<StepResult> {
  try {
    const result = await queryNamed<Record<string, unknown>>(db, { name: step.name, text: step.sql, values });
    return { row: result.rows[0]! };
  } catch (error) {
    return { error: databaseError(error, { sql: step.sql, values }).atPath(errorPath) };
  }
}
