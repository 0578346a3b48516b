import { createServer } from 'node:net';

/**
 * A free TCP port on 127.0.0.1, bound and released: a port for a server a spec starts itself, or a
 * closed port (nothing listens there) for a spec about a server that is gone.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
