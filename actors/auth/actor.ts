import type { Actor, ActorContext } from '../../src/actor/actor.js';
import { JsonReply } from '../../src/bus/bus.js';
import { validate } from '../../src/schemas/validator.js';
import { JwkRefresher } from './jwk/refresher.js';
import { createJwtAuthenticator, type JwtAuthenticator } from './jwt/authenticate.js';
import { staticKeySource } from './jwt/keys.js';
import { createSessionResolver } from './resolver.js';
import { validateAuthConfig } from './validate.js';
import { createAuthWebhook } from './webhook.js';
import { traced } from '../../src/tracing/tracer.js';
import { typedLog } from '../../src/log/log-types.js';

/** JWK fetches and refreshes go to the monitor subject and to the log (failures as warnings). */
function reportJwk(context: ActorContext, detail: Record<string, unknown>): void {
  context.announce('auth.jwk', detail);
  const failed = typeof detail.event === 'string' && detail.event.endsWith('failed');
  context.log[failed ? 'warn' : 'info']({ jwk: detail }, failed ? 'JWK set fetch failed' : 'JWK set fetched');
}

interface ResolveRequest {
  headers: Record<string, string>;
  /** The GraphQL request, for a POST-mode auth webhook. */
  request?: unknown;
}

/**
 * The auth actor answers `<p>.auth.resolve`: request headers in, the session
 * `{role, variables}` out, or the authentication error the edge turns into a response.
 * Every instance verifies on its own; it needs no shared state.
 */
export const authActor: Actor = {
  name: 'auth',
  checkSettings(config) {
    validateAuthConfig(config);
  },
  async start(context) {
    const { config } = context;
    const jwtSettings = validateAuthConfig(config);
    let refresher: JwkRefresher | undefined;
    let jwt: JwtAuthenticator | undefined;
    if (jwtSettings !== undefined) {
      const { key } = jwtSettings;
      const keys =
        key.kind === 'jwk_url'
          ? (refresher = await JwkRefresher.start({ url: key.url, announce: (detail) => reportJwk(context, detail) }))
          : staticKeySource(key);
      jwt = createJwtAuthenticator(jwtSettings, keys);
      const cache = jwt.cache;
      context.reportGauges(() => ({
        token_cache_size: cache?.size ?? 0,
        token_cache_hits: cache?.hits ?? 0,
        token_cache_misses: cache?.misses ?? 0,
        ...(refresher?.gauges() ?? {}),
      }));
    }
    // The webhook must answer well inside the bus timeout, so that its failure, not a
    // bus timeout, is what the client sees.
    const hookTimeoutMs = Math.min(10_000, Math.floor(config.busTimeoutMs / 2));
    const webhook = config.authHook === undefined ? undefined : createAuthWebhook({ url: config.authHook, mode: config.authHookMode, timeoutMs: hookTimeoutMs, log: typedLog(context.log, 'webhook-log', config.enabledLogTypes) });
    const resolve = createSessionResolver(config, { jwt, webhook });
    context.serve(context.bus.subjects.authResolve, async (request) => {
      const { headers, request: graphqlRequest } = validate<ResolveRequest>('bus/auth-resolve-request', request.json());
      return new JsonReply(await traced('auth resolution', request.trace, {}, () => resolve(headers, graphqlRequest)));
    });
    return { stop: async () => refresher?.stop() };
  },
};
