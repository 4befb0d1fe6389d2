import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Config } from '../config/load.js';
import type { Sent } from './respond.js';

/** Where the console's pages live, under its own path so the APIs keep theirs. */
export const CONSOLE_PATH = '/console';

/**
 * Self only: scripts, workers and connections (the WebSocket included) come from the
 * engine. Inline styles are allowed because GraphiQL and its editor set element styles.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

interface ConsoleFile {
  body: Buffer;
  type: string;
  /** Built on first request: the bundles are megabytes, so each is compressed once. */
  gzipped?: Buffer;
}

/** The console is on when asked for, else in development mode (no admin secret), as Hasura's dev mode. */
export function consoleEnabled(config: Pick<Config, 'enableConsole' | 'adminSecret'>): boolean {
  return config.enableConsole ?? config.adminSecret === undefined;
}

/** `dist/console` of the package, whether this module runs from `dist/src/edge` or from `src/edge` (tsx). */
export function consoleBuildDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const packageRoot = here.split(sep).includes('dist') ? join(here, '..', '..', '..') : join(here, '..', '..');
  return join(packageRoot, 'dist', 'console');
}

/** Every file of the build, by its URL path under /console: only these are ever served, so no path can reach outside. */
function loadFiles(dir: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.set(`/${relative(dir, path).split(sep).join('/')}`, { body: readFileSync(path), type: TYPES[extname(path)] ?? 'application/octet-stream' });
    }
  };
  walk(dir);
  return files;
}

export type ConsoleServer = (request: IncomingMessage, response: ServerResponse, path: string) => Sent | undefined;

/**
 * Serves the console's single-page app: hashed assets for a year (their names change with
 * their content), index.html for every other page under /console (the app routes in the
 * browser) and never cached. Answers undefined for a path that is not the console's.
 */
export function createConsoleServer(dir: string): ConsoleServer {
  const built = statSync(join(dir, 'index.html'), { throwIfNoEntry: false }) !== undefined;
  const files = built ? loadFiles(dir) : new Map<string, ConsoleFile>();
  return (request, response, path) => {
    if (path === '/') return redirect(response, `${CONSOLE_PATH}/`);
    if (path !== CONSOLE_PATH && !path.startsWith(`${CONSOLE_PATH}/`)) return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    const inner = decodedPath(path.slice(CONSOLE_PATH.length));
    if (inner === undefined) return undefined;
    const asset = files.get(inner);
    if (asset !== undefined && inner.startsWith('/assets/')) return sendFile(request, response, asset, 'public, max-age=31536000, immutable');
    if (inner.startsWith('/assets/') || extname(inner) !== '') return undefined;
    const index = files.get('/index.html');
    if (index === undefined) return notBuilt(response);
    return sendFile(request, response, index, 'no-cache');
  };
}

/** The path's segments decoded; undefined (not found) for a `.` or `..` segment, or a byte no file name has. */
function decodedPath(raw: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (/[\\\0]/.test(decoded)) return undefined;
  const segments = decoded.split('/');
  if (segments.some((segment) => segment === '.' || segment === '..')) return undefined;
  return decoded === '' ? '/' : decoded;
}

function sendFile(request: IncomingMessage, response: ServerResponse, file: ConsoleFile, cacheControl: string): Sent {
  const headers: Record<string, string | number> = {
    'content-type': file.type,
    'cache-control': cacheControl,
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  let body = file.body;
  if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')) && file.body.length >= 1024) {
    file.gzipped ??= gzipSync(file.body);
    body = file.gzipped;
    headers['content-encoding'] = 'gzip';
    headers.vary = 'accept-encoding';
  }
  headers['content-length'] = body.length;
  response.writeHead(200, headers);
  response.end(request.method === 'HEAD' ? undefined : body);
  return { status: 200 };
}

function redirect(response: ServerResponse, location: string): Sent {
  response.writeHead(302, { location, 'content-length': 0 });
  response.end();
  return { status: 302 };
}

/** The engine runs from sources whose console was never built (`npm run build` builds it). */
function notBuilt(response: ServerResponse): Sent {
  const text = 'The console is enabled but not built: run `npm run build` (npm start does it).\n';
  response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
  return { status: 503 };
}
