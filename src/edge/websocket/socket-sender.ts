import type { WebSocket } from 'ws';

/** RFC 6455 1008: the peer broke a policy; here, it does not read what it asked for. */
export const SLOW_CONSUMER = 1008;

/**
 * Sends text frames on an open socket; a client that lets more than `maxBufferedBytes`
 * pile up unread is disconnected rather than held in memory (its subscriptions then end
 * with the socket).
 */
export function socketSender(socket: WebSocket, maxBufferedBytes: number): (text: string | Buffer) => void {
  return (text) => {
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > maxBufferedBytes) {
      socket.close(SLOW_CONSUMER, 'the client does not read its messages');
      return;
    }
    socket.send(text, { binary: false });
  };
}

/** Whether a GraphQL response is a refusal before execution: errors and no data. */
export function isRefusal(result: string): boolean {
  return result.startsWith('{"errors":');
}
