import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import WebSocket from 'ws';

/** A WebSocket driven frame by frame, for what no well-behaved client sends. */
export interface RawSocket {
  socket: WebSocket;
  protocol: string;
  frames: unknown[];
  send(frame: unknown): void;
  /** The first received frame (after `from`) that matches, within the timeout. */
  next(match: (frame: any) => boolean, timeoutMs?: number): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
}

export async function openRaw(url: string, protocols: string[]): Promise<RawSocket> {
  const socket = new WebSocket(url.replace(/^http/, 'ws') + '/v1/graphql', protocols);
  const frames: unknown[] = [];
  const waiters: (() => void)[] = [];
  socket.on('message', (data) => {
    frames.push(JSON.parse(String(data)));
    waiters.splice(0).forEach((wake) => wake());
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => {
    resolve({ code, reason: String(reason) });
    waiters.splice(0).forEach((wake) => wake());
  }));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let seen = 0;
  return {
    socket,
    protocol: socket.protocol,
    frames,
    send: (frame) => socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    next(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames)}`)), timeoutMs);
        const check = () => {
          while (seen < frames.length) {
            const frame = frames[seen++];
            if (match(frame)) {
              clearTimeout(timer);
              return resolve(frame);
            }
          }
          if (socket.readyState === WebSocket.CLOSED) {
            clearTimeout(timer);
            return reject(new Error(`socket closed; got ${JSON.stringify(frames)}`));
          }
          waiters.push(check);
        };
        check();
      });
    },
    closed,
  };
}

/**
 * A WebSocket client that sends its frames and then never reads (a bare TCP socket, the
 * handshake by hand): the server's send buffer is all that can hold what it is sent.
 */
export async function openDeafSocket(url: string, protocol: string, frames: unknown[]): Promise<{ closed: Promise<void>; destroy(): void }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  socket.write(
    `GET /v1/graphql HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
  );
  for (const frame of frames) socket.write(maskedTextFrame(JSON.stringify(frame)));
  socket.pause();
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  return { closed, destroy: () => socket.destroy() };
}

/** A client-to-server text frame (RFC 6455 5.2: clients mask their payload). */
function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const length = payload.length < 126 ? Buffer.from([0x80 | payload.length]) : payload.length < 65536 ? Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff]) : null;
  if (length === null) throw new Error('frame too large for this test client');
  const masked = Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]!));
  return Buffer.concat([Buffer.from([0x81]), length, mask, masked]);
}
