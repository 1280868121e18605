/** Methods about the daemon itself: status, stop, and the method list. */
import { z } from 'zod';
import { method, type MethodTable } from '../rpc/methods.js';
import type { MethodContext } from './context.js';

export interface DaemonStatus {
  pid: number;
  version: string;
  socket: string;
  startedAt: string;
  defaultSession: string;
  sessions: number;
  connections: number;
}

export function daemonMethods(
  ctx: MethodContext,
  /** Every method by name, for `rpc.methods` (handover methods included). */
  table: () => Readonly<Record<string, { readonly summary: string }>>,
): MethodTable {
  return {
    'daemon.status': method(
      z.object({}),
      'pid, version, socket, start time, session and connection counts',
      (): DaemonStatus => ({
        pid: process.pid,
        version: ctx.version,
        socket: ctx.socketPath,
        startedAt: ctx.daemon.startedAt.toISOString(),
        defaultSession: ctx.daemon.defaultSession.id,
        sessions: ctx.daemon.sessions().length,
        connections: ctx.daemon.pool.stats().length,
      }),
    ),
    'daemon.stop': method(
      z.object({ restart: z.boolean().optional() }),
      "{ pid, agents }: starts a graceful shutdown; the daemon closes this connection when it is done. With restart, the agents' serves start a daemon at once and restore their sessions there",
      (p, call) => {
        const restart = p.restart === true;
        call.afterReply(() =>
          ctx.requestStop(
            restart ? 'mcpctl restart' : 'mcpctl stop',
            restart ? 'now' : 'on-demand',
          ),
        );
        // The agents that are told what to do (serves of gateway protocol 2 or later).
        return { pid: process.pid, agents: ctx.stopNotices.size };
      },
    ),
    'rpc.methods': method(z.object({}), '{ name: summary } of every method', () =>
      Object.fromEntries(Object.entries(table()).map(([name, m]) => [name, m.summary])),
    ),
  };
}
