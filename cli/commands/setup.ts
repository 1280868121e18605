/**
 * `mcpctl setup AGENT [--dry-run] [--http [HOST:]PORT] [--undo [--force]]`: points an agent at
 * mcpctl and moves its servers to mcpctl, so its next session reaches each of them once,
 * through mcpctl (cli/setup/, AGENTS.md there for each agent).
 *
 * Guarantees:
 * - The whole change is planned before anything is written; a refusal (a file not understood,
 *   an entry not convertible) exits 1 naming each file, place and fix, and writes nothing.
 * - `--dry-run` prints the change as a unified diff per file (secrets `<redacted>`) and the
 *   notes, and writes nothing, not even a backup.
 * - A real run keeps a backup first (its folder printed) and writes atomically; a second run
 *   finds nothing to do and says "already set up", writing nothing.
 * - `--undo` restores the agent's files byte for byte from the latest backup and removes what
 *   setup added to mcpctl's server file; a file changed since is named and nothing is done,
 *   unless `--force`.
 * - Nothing printed holds a secret: names, paths and keys only, and the diff's values hidden.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { ServerFileError } from '../../api/index.js';
import type { GlobalOptions, Io } from '../command-env.js';
import { CliError, UsageError } from '../errors.js';
import { PATH as HTTP_PATH } from '../http/checks.js';
import { TokenFileError, ensureToken, readToken, tokenPath } from '../http/token.js';
import { homeDirectory } from '../rpc/socket-path.js';
import { AGENTS } from '../setup/agents.js';
import { applyPlan, undoSetup } from '../setup/apply.js';
import { unifiedDiff } from '../setup/diff.js';
import { named } from '../setup/entries.js';
import { planSetup, realpathOrUndefined, type SetupPlan } from '../setup/planner.js';
import { serveReach } from '../setup/reach.js';
import { serverFileSide } from '../setup/server-file-side.js';
import type { AgentId, Reach } from '../setup/types.js';

interface SetupOptions {
  dryRun?: boolean;
  undo?: boolean;
  force?: boolean;
  http?: string;
}

/** A dry run makes no token file: a stand-in, shown `<redacted>` like the real one. */
const DRY_RUN_TOKEN = 'token-made-by-the-real-run';

function httpReach(spec: string, home: string, dryRun: boolean): Reach {
  const m = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(spec);
  const port = m === null ? NaN : Number(m[2]);
  if (m === null || !(port > 0 && port < 65536))
    throw new UsageError(
      `--http ${JSON.stringify(spec)}: expected [HOST:]PORT, as the daemon's --http takes`,
    );
  let token: string;
  try {
    token = dryRun ? (readToken(tokenPath(home)) ?? DRY_RUN_TOKEN) : ensureToken(tokenPath(home));
  } catch (err) {
    if (err instanceof TokenFileError) throw new CliError(err.message);
    throw err;
  }
  return { kind: 'http', url: `http://${m[1] ?? '127.0.0.1'}:${port}${HTTP_PATH}`, token };
}

function printDiffs(io: Io, plan: SetupPlan): void {
  for (const f of plan.files)
    io.out(
      unifiedDiff(
        f.before.path,
        f.before.kind === 'text' ? f.before.text : undefined,
        f.after,
        plan.secrets,
      ),
    );
  const s = plan.serverFile;
  if (s.added.length > 0) io.out(unifiedDiff(s.path, s.before, s.after, plan.secrets));
}

function movesText(plan: SetupPlan): string[] {
  return plan.moves.map((m) =>
    m.to === 'qwenOnlyExcluded'
      ? `recorded ${named(m.name)} (${m.from}) in ${plan.serverFile.path} qwenOnlyExcluded: skipped by Qwen Code, served by mcpctl`
      : `moved ${named(m.name)} from ${m.from} to ${plan.serverFile.path} ${m.to === 'workspace' ? `projects[${named(m.workspace ?? '')}]` : 'mcpServers'}`,
  );
}

export function registerSetup(program: Command, io: Io): void {
  program
    .command('setup')
    .description(
      "point an agent (claude, gemini, qwen, vscode, cursor) at mcpctl and move its servers to mcpctl's server file, so it reaches each one once, through mcpctl",
    )
    .argument('<agent>', `the agent: ${[...AGENTS.keys()].join(', ')}`)
    .option('--dry-run', 'print the change as a diff per file; write nothing')
    .option(
      '--http <[host:]port>',
      "write the daemon's HTTP endpoint (with its token) instead of 'mcpctl serve'",
    )
    .option(
      '--undo',
      "restore the agent's files from the latest backup and remove what setup added",
    )
    .option('--force', 'with --undo: restore even files changed since setup wrote them')
    .action(async (agentName: string, opts: SetupOptions, cmd: Command) => {
      const agent = AGENTS.get(agentName as AgentId);
      if (agent === undefined)
        throw new UsageError(
          `unknown agent ${JSON.stringify(agentName)}; expected one of ${[...AGENTS.keys()].join(', ')}`,
        );
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const home = homeDirectory();
      const side = serverFileSide(home);
      if (opts.undo === true) {
        const undone = await undoSetup(home, agent.id, side, opts.force === true).catch(
          (err: unknown) => {
            if (err instanceof ServerFileError) throw new CliError(err.message);
            throw err;
          },
        );
        if (undone === undefined) {
          io.out(
            `nothing to undo: no setup of ${agent.title} in ${path.join(home, '.mcpctl', 'backups', agent.id)}\n`,
          );
          return;
        }
        for (const f of undone.restored) io.out(`restored ${f}\n`);
        for (const f of undone.removed) io.out(`removed ${f} (setup made it)\n`);
        for (const k of undone.kept) io.out(`kept ${k}\n`);
        io.out(`undone: ${agent.title} as before the setup of ${undone.folder}\n`);
        return;
      }
      const workspace = realpathOrUndefined(path.resolve(globals.workspace ?? process.cwd()));
      if (workspace === undefined)
        throw new CliError(
          `the workspace ${globals.workspace ?? process.cwd()} does not exist; run setup in your project's folder`,
        );
      const reach =
        opts.http === undefined ? serveReach() : httpReach(opts.http, home, opts.dryRun === true);
      const plan = await planSetup(
        agent,
        { home, workspace, reach, realpath: realpathOrUndefined },
        side,
      );
      if (plan.refusals.length > 0)
        throw new CliError(
          `mcpctl setup ${agent.id}: nothing was changed:\n  ${plan.refusals.join('\n  ')}`,
        );
      const notes = plan.notes.map((n) => `note: ${n}\n`).join('');
      if (plan.done) {
        io.out(`already set up: ${agent.title} reaches mcpctl, nothing to change\n${notes}`);
        return;
      }
      if (opts.dryRun === true) {
        printDiffs(io, plan);
        io.out(
          `${movesText(plan)
            .map((l) => `would be ${l}\n`)
            .join('')}${notes}dry run: nothing was written\n`,
        );
        return;
      }
      const backup = await applyPlan(plan, home, side).catch((err: unknown) => {
        // The server file's editor refuses with a message naming the file and the fix.
        if (err instanceof ServerFileError) throw new CliError(err.message);
        throw err;
      });
      io.out(
        `${movesText(plan)
          .map((l) => `${l}\n`)
          .join('')}${notes}`,
      );
      io.out(
        `${agent.title} now reaches mcpctl through one entry ${named('mcpctl')}; start a new session of it\n`,
      );
      io.out(`backup: ${backup} (mcpctl setup ${agent.id} --undo restores it)\n`);
    });
}
