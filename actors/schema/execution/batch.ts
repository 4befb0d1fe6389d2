import { graphqlErrorBody } from '../../../src/errors/bodies.js';
import { errors } from '../../../src/errors/errors.js';
import { ServiceError } from '../../../src/errors/service-error.js';
import type { Logger } from '../../../src/log/logger.js';
import type { Cancellation } from '../../../src/request/cancellation.js';
import type { GraphqlRequest } from './engine.js';

/** What stops a batch between two of its members: the request's cancellation and deadline. */
export interface BatchBounds {
  cancellation?: Cancellation;
  deadline?: number;
}

/**
 * Runs the operations of a batched body one after the other, as Hasura does: each sees
 * what the ones before it committed, and each gets its own answer, so a failing member
 * (refused, a database error, over a limit) leaves the others answered. Once the request
 * is cancelled or out of time the remaining members are not run; each is answered with
 * the reason.
 */
export async function runBatch(requests: readonly GraphqlRequest[], run: (request: GraphqlRequest) => Promise<Uint8Array>, bounds: BatchBounds, log: Logger): Promise<Uint8Array[]> {
  const answers: Uint8Array[] = [];
  for (const request of requests) {
    const stopped = stopReason(bounds);
    if (stopped !== null) {
      answers.push(graphqlErrorBody([stopped]));
      continue;
    }
    answers.push(await runMember(request, run, log));
  }
  return answers;
}

function stopReason(bounds: BatchBounds): ServiceError | null {
  const cancelled = bounds.cancellation?.reason;
  if (cancelled !== undefined) return cancelled;
  if (bounds.deadline !== undefined && bounds.deadline <= Date.now()) return errors.timeLimitExceeded('$');
  return null;
}

/** One member's answer; a bug met by one member is logged and answered for that member alone, since earlier members may have committed. */
async function runMember(request: GraphqlRequest, run: (request: GraphqlRequest) => Promise<Uint8Array>, log: Logger): Promise<Uint8Array> {
  try {
    return await run(request);
  } catch (error) {
    if (error instanceof ServiceError) return graphqlErrorBody([error]);
    log.error({ err: error }, 'a member of a batched GraphQL request failed');
    return graphqlErrorBody([errors.unexpected('$')]);
  }
}
