/**
 * The `--http` address held while the daemon starts: bound before any session opens, so a port
 * in use (or an address this machine does not have) fails the start before a single server is
 * spawned, and let go just before the HTTP endpoint binds it.
 *
 * Guarantees:
 * - holdHttpPort() rejects with the endpoint's own message (serve-http.ts `listenError`):
 *   the address and what to do.
 * - Port 0 holds nothing: the system picks a free port when the endpoint binds.
 * - release() closes the listener and resolves once the port is free; calling it again does
 *   nothing. Between release() and the endpoint's bind another process could still take the
 *   port; the endpoint's start then fails as before and the daemon stops what it started.
 */
import { createServer } from 'node:net';
import { listenError, type HttpServeOptions } from './http/serve-http.js';

export interface HttpPortHold {
  release(): Promise<void>;
}

export async function holdHttpPort(
  o: Pick<HttpServeOptions, 'host' | 'port'>,
): Promise<HttpPortHold> {
  if (o.port === 0) return { release: () => Promise.resolve() };
  const server = createServer();
  // Nobody is meant to connect here: a connection that arrives anyway is closed at once.
  server.on('connection', (socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenError(o, err)));
    server.listen({ host: o.host, port: o.port, exclusive: true }, resolve);
  });
  let released: Promise<void> | undefined;
  return {
    release: () =>
      (released ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
      })),
  };
}
