import type { Session } from '../../src/session/session.js';
import { SESSION_MESSAGE_PREFIX } from './capture/reader.js';

/**
 * For the engine's own mutations: the statement that puts the request's session
 * variables into the transaction's WAL, so the events of the rows it writes carry
 * `session_variables` (compat-facts 4.1; Hasura's `SET LOCAL hasura.user`).
 *
 * Run it inside the mutation's transaction BEFORE its first write:
 *   const message = sessionMessageSql(session);
 *   await client.query(message.text, message.values);
 * A transactional logical decoding message costs one small WAL record and is ignored
 * when no trigger exists. Changes made outside the engine send none: their events carry
 * `session_variables: null`.
 */
export function sessionMessageSql(session: Session | Record<string, string>): { text: string; values: [string] } {
  const variables = 'variables' in session && typeof session.variables === 'object' ? (session as Session).variables : (session as Record<string, string>);
  return { text: `select pg_logical_emit_message(true, '${SESSION_MESSAGE_PREFIX}', $1::text)`, values: [JSON.stringify(variables)] };
}
