import type { IncomingMessage } from 'node:http';
import { errors } from '../errors/errors.js';

/** Reads the request body, refusing (413) as soon as it passes `limit` bytes. */
export async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw errors.bodyTooLarge('$', limit);
  const pieces: Buffer[] = [];
  let size = 0;
  for await (const piece of request as AsyncIterable<Buffer>) {
    size += piece.length;
    if (size > limit) throw errors.bodyTooLarge('$', limit);
    pieces.push(piece);
  }
  return Buffer.concat(pieces, size);
}

/** Request headers as the bus carries them: lower-case names, repeated values joined. */
export function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
