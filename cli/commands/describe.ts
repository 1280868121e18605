/**
 * `mcpctl describe server NAME` / `describe languageserver NAME`: everything about one server,
 * kubectl describe style, with the session's conditions when a config file of it is broken.
 */
import { Argument, type Command } from 'commander';
import { kindNamed, LANGUAGE_SERVER, MCP_SERVER } from '../../api/index.js';
import { commandEnv, withSession, type GlobalOptions, type Io } from '../command-env.js';
import { describeLanguageServer, describeServer } from '../output/describe.js';
import type { LanguageServerDescription, ServerDescription } from '../objects.js';
import { OBJECT_TYPES, parseObjectRef } from '../object-ref.js';

export function registerDescribe(program: Command, io: Io): void {
  program
    .command('describe')
    .description(
      'show one server or language server: spec, status, conditions, recent stderr and events',
    )
    .addArgument(new Argument('<resource>', 'server or languageserver').choices(OBJECT_TYPES))
    .argument('<name>', 'server name')
    .action(async (resource: string, name: string, _opts: object, cmd: Command) => {
      const env = commandEnv(cmd.optsWithGlobals<GlobalOptions>(), io);
      // The choices are TYPE words, so the reference always names its kind.
      const kind = parseObjectRef(`${resource}/${name}`).kind ?? MCP_SERVER;
      const fetch = <D>() =>
        withSession(
          env,
          (client) =>
            client.call<D>(`${kindNamed(kind).resource}.describe`, {
              ...env.selector,
              name,
              showSecrets: env.showSecrets,
            }),
          // Its Session Conditions say it.
          { configWarnings: false },
        );
      io.out(
        kind === LANGUAGE_SERVER
          ? describeLanguageServer(await fetch<LanguageServerDescription>(), env.now(), env.style)
          : describeServer(await fetch<ServerDescription>(), env.now(), env.style),
      );
    });
}
