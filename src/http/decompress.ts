import { brotliDecompress, gunzip, inflate, inflateRaw } from 'node:zlib';

/**
 * A response body as its `content-encoding` says: gzip, deflate or brotli undone, anything
 * else as it came. Output beyond `maxBytes` fails with zlib's ERR_BUFFER_TOO_LARGE.
 */
export function decompress(body: Buffer, encoding: string | string[] | undefined, maxBytes: number): Promise<Buffer> {
  const name = (Array.isArray(encoding) ? encoding[0] : encoding)?.trim().toLowerCase();
  if (name === undefined || name === '' || name === 'identity' || body.length === 0) return Promise.resolve(body);
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Buffer) => (error === null ? resolve(result) : reject(error));
    const options = { maxOutputLength: maxBytes };
    if (name === 'gzip' || name === 'x-gzip') gunzip(body, options, done);
    else if (name === 'br') brotliDecompress(body, options, done);
    // "deflate" is meant to be zlib-wrapped, but some servers send it raw.
    else if (name === 'deflate') (body[0]! & 0x0f) === 0x08 ? inflate(body, options, done) : inflateRaw(body, options, done);
    else resolve(body);
  });
}
