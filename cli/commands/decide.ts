/**
 * `mcpctl approve NAME [--session]` and `mcpctl reject NAME`: decide about the server's
 * current config (its approval hash). A server that needs no approval, or an unknown name,
 * fails with exit 1 and says why (with the closest names).
 */
import type { Command } from 'commander';
import { findCondition } from '../../api/index.js';
import { commandEnv, withDaemon, type GlobalOptions, type Io } from '../command-env.js';
import type { McpServer } from '../resources.js';

export function registerDecisions(program: Command, io: Io): void {
  program
    .command('approve')
    .description("approve a project/workspace server's current config so it may start")
    .argument('<name>', 'server name')
    .option('--session', 'approve for this session only (nothing is saved)')
    .action(async (name: string, _opts: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & { session?: boolean }>();
      const env = commandEnv(opts, io);
      const server = await withDaemon(env, (client) =>
        client.call<McpServer>('servers.approve', {
          ...env.selector,
          name,
          sessionOnly: opts.session === true,
        }),
      );
      io.out(
        `server/${name} approved${opts.session ? ' for this session' : ''} (${state(server)})\n`,
      );
    });
  program
    .command('reject')
    .description(
      "reject a project/workspace server's current config: it stays down until its config changes",
    )
    .argument('<name>', 'server name')
    .action(async (name: string, _opts: object, cmd: Command) => {
      const env = commandEnv(cmd.optsWithGlobals<GlobalOptions>(), io);
      const server = await withDaemon(env, (client) =>
        client.call<McpServer>('servers.reject', { ...env.selector, name }),
      );
      io.out(`server/${name} rejected (${state(server)})\n`);
    });
}

function state(server: McpServer): string {
  const ready = findCondition(server.status.conditions, 'Ready');
  return `Ready=${ready?.status ?? 'Unknown'}${ready?.reason ? ` ${ready.reason}` : ''}`;
}
