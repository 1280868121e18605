/**
 * `mcpctl why NAME [-o json] [-A]`: why a server's tools are unavailable (DESIGN rule 16) and the
 * action that fixes it. Text: `<Reason>: <action>` then the detail; JSON: `{ name, reason,
 * message, action }` with `reason: "Available"` when the server is Ready. With `-A`, every
 * session's answer: text lines under `session NAME:`, JSON an array of the answers each with
 * its `session`; a session that has no such server says so in its place (exit 0).
 */
import { Option, type Command } from 'commander';
import {
  commandEnv,
  withDaemon,
  withSession,
  type GlobalOptions,
  type Io,
} from '../command-env.js';
import { RpcCallError } from '../rpc/client.js';
import { RpcCodes } from '../rpc/protocol.js';
import { checkAllSessions, eachSession } from './all-sessions.js';
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
    .option('-A, --all-sessions', "every session's answer, each under its session's name")
    .action(async (name: string, _opts: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals<
        GlobalOptions & { output: 'text' | 'json'; allSessions?: boolean }
      >();
      checkAllSessions(opts);
      const env = commandEnv(opts, io);
      const ref = parseObjectRef(name);
      if (opts.allSessions) {
        const answers = await withDaemon(env, (client) =>
          eachSession(client, (sessionId) =>
            client.call<WhyAnswer>('servers.why', { ...env.selector, ...ref, sessionId }).then(
              (answer): WhyAnswer | { error: string } => answer,
              (err: unknown) => {
                // Not configured in that session: its place says so, the others still show.
                if (err instanceof RpcCallError && err.code === RpcCodes.NotFound)
                  return { error: err.message };
                throw err;
              },
            ),
          ),
        );
        if (opts.output === 'json') {
          io.out(json(answers.map(({ session, answer }) => ({ session, ...answer }))));
          return;
        }
        for (const { session, answer } of answers)
          io.out(
            `session ${session}:\n${'error' in answer ? `  ${answer.error}\n` : indent(text(answer))}`,
          );
        return;
      }
      const answer = await withSession(env, (client) =>
        client.call<WhyAnswer>('servers.why', { ...env.selector, ...ref }),
      );
      io.out(opts.output === 'json' ? json(answer) : text(answer));
    });
}

function text(answer: WhyAnswer): string {
  const head =
    answer.reason === 'Available'
      ? `Available: ${answer.message}`
      : `${answer.reason}: ${answer.action}`;
  return `${head}\n${answer.reason === 'Available' ? '' : `  ${answer.message}\n`}`;
}

function indent(lines: string): string {
  return lines.replace(/^(?=.)/gm, '  ');
}
