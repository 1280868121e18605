/**
 * `mcpctl why NAME [-o json]`: why a server's tools are unavailable (DESIGN rule 16) and the
 * action that fixes it. Text: `<Reason>: <action>` then the detail; JSON: `{ name, reason,
 * message, action }` with `reason: "Available"` when the server is Ready.
 */
import { Option, type Command } from 'commander';
import { commandEnv, withSession, type GlobalOptions, type Io } from '../command-env.js';
import { json } from '../output/format.js';
import { parseObjectRef } from '../object-ref.js';
import type { WhyAnswer } from '../../controller/session.js';

export function registerWhy(program: Command, io: Io): void {
  program
    .command('why')
    .description("say why a server's tools are unavailable, and how to fix it")
    .argument('<name>', 'server name, or languageserver/NAME')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['text', 'json'])
        .default('text'),
    )
    .action(async (name: string, _opts: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & { output: 'text' | 'json' }>();
      const env = commandEnv(opts, io);
      const answer = await withSession(env, (client) =>
        client.call<WhyAnswer>('servers.why', { ...env.selector, ...parseObjectRef(name) }),
      );
      if (opts.output === 'json') {
        io.out(json(answer));
        return;
      }
      const head =
        answer.reason === 'Available'
          ? `Available: ${answer.message}`
          : `${answer.reason}: ${answer.action}`;
      io.out(`${head}\n${answer.reason === 'Available' ? '' : `  ${answer.message}\n`}`);
    });
}
