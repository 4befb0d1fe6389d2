import type { Actor } from '../../src/actor/actor.js';
import { encodeJson } from '../../src/bus/wire.js';
import { validate } from '../../src/schemas/validator.js';
import { createSessionResolver } from './resolver.js';

interface ResolveRequest {
  headers: Record<string, string>;
}

/**
 * The auth actor answers `<p>.auth.resolve`: request headers in, the session
 * `{role, variables}` out, or the authentication error the edge turns into a response.
 * Every instance verifies on its own; it needs no shared state.
 */
export const authActor: Actor = {
  name: 'auth',
  async start(context) {
    const resolve = createSessionResolver(context.config);
    context.serve(context.bus.subjects.authResolve, async (request) => {
      const { headers } = validate<ResolveRequest>('bus/auth-resolve-request', request.json());
      return encodeJson(await resolve(headers));
    });
    return { stop: async () => undefined };
  },
};
