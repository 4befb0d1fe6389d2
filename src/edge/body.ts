import type { IncomingMessage } from 'node:http';
import { errors } from '../errors/errors.js';

/**
 * Reads the request body, refusing (413) as soon as it passes `limit` bytes. Events
 * rather than an async iterator: this runs on every request, and the iterator's set-up
 * costs more than reading a small body.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(errors.bodyTooLarge('$', limit));
  return new Promise((resolve, reject) => {
    const pieces: Buffer[] = [];
    let size = 0;
    request.on('data', (piece: Buffer) => {
      size += piece.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.resume();
        reject(errors.bodyTooLarge('$', limit));
        return;
      }
      pieces.push(piece);
    });
    request.once('end', () => resolve(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, size)));
    request.once('error', reject);
  });
}

/** Request headers as the bus carries them: lower-case names (as Node gives them), repeated values joined. */
export function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  const given = request.headers;
  for (const name in given) {
    const value = given[name];
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
