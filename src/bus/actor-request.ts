import type { Bus } from './bus.js';
import type { Subjects } from './subjects.js';

/**
 * Asks another actor a question: the subject from the cluster's subjects, a JSON
 * message, its JSON reply (an error reply is thrown as the ServiceError it carries).
 * Answered in-process when this process runs that actor (local delivery).
 */
export type ActorRequest = <T>(subject: (subjects: Subjects) => string, message: unknown) => Promise<T>;

export function actorRequest(bus: Bus, options: { requestId: string; timeoutMs: number }): ActorRequest {
  return <T>(subject: (subjects: Subjects) => string, message: unknown) => bus.request<T>(subject(bus.subjects), message, options);
}
