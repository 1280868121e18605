/**
 * `mcpctl completion bash|zsh|fish`: the shell's completion script, made from this program's
 * own commands (cli/completion.ts). And the hidden `mcpctl __complete names|refs` the scripts
 * call for server names.
 *
 * Guarantees:
 * - The script goes to stdout and nothing else; an unknown shell is bad usage (exit 2).
 * - `__complete` prints one word a line, the servers of the session of the current folder
 *   (both kinds), and always exits 0: no daemon, a slow one (given up on after 1 s) or any
 *   error prints nothing at all, on stdout or stderr. Never starts a daemon. Names that are
 *   not plain words (spaces, quotes, control characters: a hostile config) are left out, so
 *   nothing odd is typed into the user's command line.
 */
import { Argument, type Command } from 'commander';
import { LANGUAGE_SERVERS, MCP_SERVERS } from '../../api/index.js';
import { commandEnv, type GlobalOptions, type Io } from '../command-env.js';
import { SHELLS, completionScript, programModel, type Shell } from '../completion.js';
import { connectClient } from '../rpc/client.js';

/** How long `__complete` waits for the daemon, in all. */
const COMPLETE_TIMEOUT_MS = 1000;
const PLAIN_NAME = /^[A-Za-z0-9_.@:+-]+$/;

export function registerCompletion(program: Command, io: Io): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(mcpctl completion bash)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action((shell: Shell) => {
      io.out(completionScript(programModel(program), shell));
    });
  program
    .command('__complete', { hidden: true })
    .argument('<what>', 'names or refs')
    .action(async (what: string, _opts: object, cmd: Command) => {
      const words = await daemonWords(cmd.optsWithGlobals<GlobalOptions>(), what === 'refs');
      if (words.length) io.out(`${words.join('\n')}\n`);
    });
}

async function daemonWords(globals: GlobalOptions, refs: boolean): Promise<string[]> {
  let env;
  try {
    env = commandEnv(globals, silentIo);
  } catch {
    return [];
  }
  let client;
  try {
    client = await connectClient(env.socket, COMPLETE_TIMEOUT_MS, {
      answerTimeoutMs: COMPLETE_TIMEOUT_MS,
    });
  } catch {
    return [];
  }
  const list = (method: string) => client.call<NamedList>(method, env.selector);
  try {
    const [mcp, lsp] = await Promise.all([
      list('servers.list'),
      // A daemon older than language servers has none to offer.
      list('languageservers.list').catch((): NamedList => ({ items: [] })),
    ]);
    const plain = (l: NamedList) =>
      l.items.map((s) => s.metadata.name).filter((n) => PLAIN_NAME.test(n));
    if (refs)
      return [
        ...plain(mcp).map((n) => MCP_SERVERS.objectOf(n)),
        ...plain(lsp).map((n) => LANGUAGE_SERVERS.objectOf(n)),
      ];
    return [...new Set([...plain(mcp), ...plain(lsp)])].sort();
  } catch {
    // No answer within the answer timeout, or any error: no words.
    return [];
  } finally {
    await client.close();
  }
}

interface NamedList {
  readonly items: readonly { readonly metadata: { readonly name: string } }[];
}

const silentIo: Io = {
  out: () => undefined,
  err: () => undefined,
  stdoutIsTTY: false,
  stderrIsTTY: false,
};
