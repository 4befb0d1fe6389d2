import { createServer, type AddressInfo } from 'node:net';

/**
 * A loopback port nothing listens on now, chosen by the kernel (a random number could
 * fall on a port in use, or in the ephemeral range outgoing connections take).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
