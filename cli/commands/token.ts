/**
 * `mcpctl token`: prints the bearer token of the daemon's HTTP endpoint (`~/.mcpctl/http-token`),
 * making it first when there is none, so an agent's config can be written before the daemon
 * runs: `export MCPCTL_TOKEN=$(mcpctl token)`.
 *
 * Guarantees: stdout is the token and a newline, nothing else; a token file that may not be
 * trusted (a symbolic link, another owner, readable by others, no token in it) is refused with
 * the file, what is wrong and the fix (exit 1), and nothing is printed.
 */
import type { Command } from 'commander';
import type { Io } from '../command-env.js';
import { CliError } from '../errors.js';
import { TokenFileError, ensureToken, tokenPath } from '../http/token.js';
import { homeDirectory } from '../rpc/socket-path.js';

export function registerToken(program: Command, io: Io): void {
  program
    .command('token')
    .description(
      "print the bearer token of the daemon's HTTP endpoint (~/.mcpctl/http-token; made if missing)",
    )
    .action(() => {
      let token: string;
      try {
        token = ensureToken(tokenPath(homeDirectory()));
      } catch (err) {
        if (err instanceof TokenFileError) throw new CliError(err.message);
        throw err;
      }
      io.out(`${token}\n`);
    });
}
