import type { WriteAccess } from '../models/write-access.js';
import type { CompileContext } from './context.js';
import { ParamList } from './params.js';

/**
 * The compile context of one mutation statement: the read side's (so `where`,
 * `returning` and permission filters compile exactly as queries do) plus what the role
 * may write. Each statement has its own parameter list; aliases run on across the
 * statements of a request, so each CTE and alias name is unique.
 */
export interface MutationContext extends CompileContext {
  writes: WriteAccess;
  /** Event triggers exist: each write also emits the session as a logical decoding message. */
  emitSessionMessage: boolean;
  /** And tracing is on: each write also emits its request's `traceparent` (null when not traced: no message). */
  emitTraceMessage: boolean;
}

export function nextStatement(context: MutationContext): MutationContext {
  return { ...context, params: new ParamList() };
}
