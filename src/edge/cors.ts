import type { IncomingMessage, ServerResponse } from 'node:http';
import { originAllowed } from '../config/cors-domains.js';
import type { Config } from '../config/load.js';
import { errors } from '../errors/errors.js';
import { sendQueryError, type Sent } from './respond.js';

/** What Hasura's CorsPolicy allows (Cors.hs `mkDefaultCorsPolicy`). */
const METHODS = 'GET,POST,PUT,PATCH,DELETE,OPTIONS';
/** 20 days: how long a browser may keep a preflight's answer (Hasura's `cpMaxAge`). */
const MAX_AGE_SECONDS = '1728000';

export type WebSocketOrigin = { refused: true } | { refused: false; readCookie: boolean };

/**
 * CORS as Hasura's corsMiddleware does it: with an allowed `Origin`, the response echoes it
 * with credentials allowed, and a preflight `OPTIONS` is answered 204 at once. A request
 * without `Origin` (not from a browser) is served as it is. Unlike Hasura, which serves an
 * unlisted origin without CORS headers and leaves the refusal to the browser, the edge
 * refuses it (403): a non-browser client forging `Origin` gains nothing, and a browser
 * page on another site gets no data even where the browser would not have checked.
 */
export function createCors(config: Pick<Config, 'corsDomain' | 'disableCors' | 'wsReadCookie'>) {
  const domains = config.corsDomain;
  return {
    /** Answers a preflight or refuses the origin (the Sent), else adds the CORS headers to come. */
    http(request: IncomingMessage, response: ServerResponse): Sent | undefined {
      const origin = request.headers.origin;
      if (config.disableCors || origin === undefined) return undefined;
      if (!originAllowed(domains, origin)) return sendQueryError(response, errors.corsOriginDenied('$'), false);
      response.setHeader('access-control-allow-origin', origin);
      response.setHeader('access-control-allow-credentials', 'true');
      response.setHeader('access-control-allow-methods', METHODS);
      if (request.method !== 'OPTIONS') return undefined;
      response.writeHead(204, {
        'access-control-max-age': MAX_AGE_SECONDS,
        'access-control-allow-headers': request.headers['access-control-request-headers'] ?? '',
        'content-length': 0,
      });
      response.end();
      return { status: 204 };
    },

    /**
     * The handshake's verdict (Hasura's WebSocket `onConn`): an unlisted origin is refused;
     * with CORS disabled nothing checks a browser's origin, so its Cookie header, sent to a
     * socket opened from any site, is not read unless --ws-read-cookie says so.
     */
    websocket(request: IncomingMessage): WebSocketOrigin {
      const origin = request.headers.origin;
      if (origin === undefined) return { refused: false, readCookie: true };
      if (config.disableCors) return { refused: false, readCookie: config.wsReadCookie };
      return originAllowed(domains, origin) ? { refused: false, readCookie: true } : { refused: true };
    },
  };
}
