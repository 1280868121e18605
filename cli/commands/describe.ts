/** `mcpctl describe server NAME`: everything about one server, kubectl describe style. */
import { Argument, type Command } from 'commander';
import { commandEnv, withSession, type GlobalOptions, type Io } from '../command-env.js';
import { describeServer } from '../output/describe.js';
import type { ServerDescription } from '../objects.js';

export function registerDescribe(program: Command, io: Io): void {
  program
    .command('describe')
    .description('show one server: spec, status, conditions, recent stderr and events')
    .addArgument(
      new Argument('<resource>', 'server').choices([
        'server',
        'servers',
        'mcpserver',
        'mcpservers',
      ]),
    )
    .argument('<name>', 'server name')
    .action(async (_resource: string, name: string, _opts: object, cmd: Command) => {
      const env = commandEnv(cmd.optsWithGlobals<GlobalOptions>(), io);
      const d = await withSession(env, (client) =>
        client.call<ServerDescription>('servers.describe', {
          ...env.selector,
          name,
          showSecrets: env.showSecrets,
        }),
      );
      io.out(describeServer(d, env.now(), env.style));
    });
}
