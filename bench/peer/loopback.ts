/**
 * Preloaded into mcp-hub (`node --import …/loopback.js`): its HTTP server listens on
 * 127.0.0.1 only.
 *
 * Why: mcp-hub has no host option; `app.listen(port)` binds every interface, and the bench
 * must open nothing beyond loopback. Only a listen without a host is changed (the form mcp-hub
 * uses); timing is unaffected, as the bench connects to 127.0.0.1 either way.
 */
import net from 'node:net';

type Listen = (this: net.Server, ...args: unknown[]) => net.Server;

// The overloads of listen() cannot be spelled as one signature; this is the untyped view of it.
// Unbound on purpose: it is only ever called through apply() with the server as `this`.
// eslint-disable-next-line @typescript-eslint/unbound-method
const original = net.Server.prototype.listen as unknown as Listen;

const loopbackOnly: Listen = function (this: net.Server, ...args: unknown[]) {
  const [first, second] = args;
  if (typeof first === 'number' && (args.length === 1 || typeof second === 'function'))
    args.splice(1, 0, '127.0.0.1');
  return original.apply(this, args);
};

net.Server.prototype.listen = loopbackOnly as typeof net.Server.prototype.listen;
