/**
 * `mcpctl stop`: graceful daemon shutdown. Returns once the daemon has closed every session
 * and connection (it hangs up on us last), so no server process outlives the command.
 */
import type { Command } from 'commander';
import { commandEnv, withDaemon, type GlobalOptions, type Io } from '../command-env.js';
import { CliError } from '../errors.js';

const STOP_TIMEOUT_MS = 120_000;

export function registerStop(program: Command, io: Io): void {
  program
    .command('stop')
    .description('stop the daemon gracefully (every server process ends)')
    .action(async (_opts: object, cmd: Command) => {
      const env = commandEnv(cmd.optsWithGlobals<GlobalOptions>(), io);
      const { pid } = await withDaemon(env, async (client) => {
        const answer = await client.call<{ pid: number }>('daemon.stop');
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS);
        });
        const outcome = await Promise.race([client.closed.then(() => 'closed' as const), timedOut]);
        clearTimeout(timer);
        if (outcome === 'timeout')
          throw new CliError(
            `the daemon (pid ${answer.pid}) did not finish stopping within ${STOP_TIMEOUT_MS / 1000}s; check its log, or end it with 'kill ${answer.pid}'`,
          );
        return answer;
      });
      io.out(`mcpctl daemon (pid ${pid}) at ${env.socket} stopped\n`);
    });
}
