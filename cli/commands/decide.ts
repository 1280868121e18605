/**
 * `mcpctl approve NAME [--for-session] [--hash PREFIX]` and `mcpctl reject NAME [--hash PREFIX]`.
 *
 * Guarantees:
 * - A decision is bound to one exact config (its approval hash). With `--hash` it is the
 *   config that prefix names; when the server's current config has another hash (it changed
 *   since the user looked) or the prefix is too short, nothing is decided, exit 1, and the
 *   message says what the current config and its hash are.
 * - Without `--hash` the daemon decides about the current config and answers with exactly the
 *   config it decided about, read in the same step, which is what is printed: the same
 *   disclosure the agent's question and `describe` show (command, args and cwd, or the URL
 *   and OAuth endpoints, as the file writes them; a repository's env values and a language
 *   server's options and settings; which variables go where, never a variable's value) and
 *   the full hash.
 * - A server that needs no approval, or an unknown name, fails with exit 1 and says why (with
 *   the closest names).
 * - `--for-session` approves for the chosen session only (nothing is saved); `--session NAME`
 *   (global) chooses the session, as on every command. A decision saved is the project's: every
 *   session of the folder follows it (they watch the approvals file).
 * - Language servers are decided the same way (`languageserver/NAME`); a bare name that both
 *   kinds have decides nothing and says which two to choose from (cli/object-ref.ts).
 */
import type { Command } from 'commander';
import {
  definitionDiff,
  disclosureLines,
  findCondition,
  heldLine,
  quoted,
} from '../../api/index.js';
import {
  commandEnv,
  progressSink,
  withDaemon,
  type GlobalOptions,
  type Io,
} from '../command-env.js';
import { UsageError } from '../errors.js';
import { withProgress } from '../progress.js';
import type {
  DecisionResult,
  LanguageServer,
  McpServer,
  SubjectSummary,
  ToolsDecisionResult,
} from '../objects.js';
import { parseObjectRef, refText } from '../object-ref.js';

const HASH_HELP = 'decide only if the config has this approval hash (a prefix of 8+ hex digits)';

export function registerDecisions(program: Command, io: Io): void {
  program
    .command('approve')
    .description("approve a project/workspace server's config so it may start")
    .argument(
      '<name>',
      'server name; languageserver/NAME or server/NAME where both kinds have the name',
    )
    // DESIGN §7's contract: `approve NAME --session` approves for the session only (run()
    // reads that word as --for-session, see approveSessionWord); the session to act on is the
    // global one, given before the command (`mcpctl --session ID approve NAME`).
    .option('--for-session', 'approve for this session only (nothing is saved); also --session')
    .option('--hash <prefix>', HASH_HELP)
    .option('--tools', TOOLS_HELP.accept)
    .action(async (name: string, _opts: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals<
        GlobalOptions & { forSession?: boolean; hash?: string; tools?: boolean }
      >();
      if (opts.tools === true) return decideTools(io, opts, name, 'accept');
      const forSession = opts.forSession === true;
      const env = commandEnv(opts, io);
      const ref = parseObjectRef(name);
      const result = await withProgress(
        progressSink(io),
        `approving ${name}: waiting for the session to settle`,
        () =>
          withDaemon(env, (client) =>
            client.call<DecisionResult>('servers.approve', {
              ...env.selector,
              ...ref,
              sessionOnly: forSession,
              ...(opts.hash === undefined ? {} : { hash: opts.hash }),
            }),
          ),
      );
      io.out(
        `${refText(result.kind, ref.name)} approved${forSession ? ' for this session' : ''} (${state(result.server)})\n`,
      );
      io.out(configLines(result.config));
    });
  program
    .command('reject')
    .description(
      "reject a project/workspace server's config: it stays down until its config changes",
    )
    .argument(
      '<name>',
      'server name; languageserver/NAME or server/NAME where both kinds have the name',
    )
    .option('--hash <prefix>', HASH_HELP)
    .option('--tools', TOOLS_HELP.reject)
    .action(async (name: string, _opts: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & { hash?: string; tools?: boolean }>();
      if (opts.tools === true) return decideTools(io, opts, name, 'reject');
      const env = commandEnv(opts, io);
      const ref = parseObjectRef(name);
      const result = await withProgress(
        progressSink(io),
        `rejecting ${name}: waiting for the session to settle`,
        () =>
          withDaemon(env, (client) =>
            client.call<DecisionResult>('servers.reject', {
              ...env.selector,
              ...ref,
              ...(opts.hash === undefined ? {} : { hash: opts.hash }),
            }),
          ),
      );
      io.out(`${refText(result.kind, ref.name)} rejected (${state(result.server)})\n`);
      io.out(configLines(result.config));
    });
}

const TOOLS_HELP = {
  accept:
    "accept the tool and prompt definitions the server's pins hold (changed, new, or with unshown characters), as describe shows them",
  reject: 'keep the held tool and prompt definitions out, without being asked about them again',
};

/** `approve NAME --tools` / `reject NAME --tools`: what was decided, each with its diff. */
async function decideTools(
  io: Io,
  opts: GlobalOptions & { hash?: string; forSession?: boolean },
  name: string,
  decision: 'accept' | 'reject',
): Promise<void> {
  if (opts.hash !== undefined || opts.forSession === true)
    throw new UsageError(
      '--tools decides about tool definitions: it takes no --hash or --for-session',
    );
  const env = commandEnv(opts, io);
  const ref = parseObjectRef(name);
  const result = await withProgress(
    progressSink(io),
    `${decision === 'accept' ? 'accepting' : 'rejecting'} the held tools of ${name}: waiting for the session to settle`,
    () =>
      withDaemon(env, (client) =>
        client.call<ToolsDecisionResult>('servers.decideTools', {
          ...env.selector,
          ...ref,
          decision,
        }),
      ),
  );
  const verb = decision === 'accept' ? 'accepted' : 'rejected';
  for (const held of result.decided) {
    io.out(`${verb} ${heldLine(held)}\n`);
    io.out(
      `${definitionDiff(held.before, held.after)
        .map((l) => `  ${l}`)
        .join('\n')}\n`,
    );
  }
  io.out(
    `${refText(result.server.kind, ref.name)}: ${result.server.status.tools.length} tools offered (${state(result.server)})\n`,
  );
}

function state(server: McpServer | LanguageServer): string {
  const ready = findCondition(server.status.conditions, 'Ready');
  return `Ready=${ready?.status ?? 'Unknown'}${ready?.reason ? ` ${ready.reason}` : ''}`;
}

/**
 * The decided config: its source, what it runs or contacts and sends where (the disclosure every
 * surface shows, values JSON-quoted so nothing can pass for another), and its hash.
 */
function configLines(config: SubjectSummary): string {
  const lines = [
    `source: ${config.scope} ${quoted(config.source)}`,
    ...disclosureLines(config.disclosure),
    `hash:   ${config.hash}`,
  ];
  return `${lines.map((l) => `  ${l}`).join('\n')}\n`;
}
