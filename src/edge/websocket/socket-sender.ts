import type { WebSocket } from 'ws';

/**
 * Sends text frames on an open socket. A client that lets more than `maxBufferedBytes`
 * pile up unread is dropped rather than held in memory: the connection is terminated at
 * once (a close frame would wait behind what the client does not read), and its
 * subscriptions end with it.
 */
export function socketSender(socket: WebSocket, maxBufferedBytes: number): (text: string | Buffer) => void {
  return (text) => {
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > maxBufferedBytes) {
      socket.terminate();
      return;
    }
    socket.send(text, { binary: false });
  };
}

/** Whether a GraphQL response is a refusal before execution: errors and no data. */
export function isRefusal(result: string): boolean {
  return result.startsWith('{"errors":');
}
