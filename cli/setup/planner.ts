/**
 * One setup, planned whole before anything is written: the agent's files read once, the agent
 * module's plan, and what mcpctl's server file becomes.
 *
 * Guarantees:
 * - Nothing here writes: a dry run prints this plan, a real run hands it to apply.ts.
 * - A refusal anywhere (a file not understood, an entry not convertible, a name the server
 *   file already holds for another server) refuses the whole plan: no file changes.
 * - A moved server the server file already holds, equal, is not added again (a second setup
 *   after a partial one); held with another config, it is a refusal naming both places.
 * - `done` is true when there is nothing to change: "already set up".
 */
import { realpathSync } from 'node:fs';
import type { Secret } from './entries.js';
import { readAgentFile } from './read-files.js';
import type { AgentFile, AgentSetup, MovedServer, SetupContext } from './types.js';

/** mcpctl's server file as setup sees it (implemented over api/'s server file editor). */
export interface ServerFileSide {
  readonly path: string;
  /** The file's text now ('' when absent); throws a message when it is not understood. */
  read(): Promise<{ readonly exists: boolean; readonly text: string }>;
  /**
   * The text with `moves` added, the moves already there (equal) left out of `added`, and a
   * refusal for each name held by another config.
   */
  plan(
    text: string,
    moves: readonly MovedServer[],
  ): {
    readonly text: string;
    readonly added: readonly MovedServer[];
    readonly refusals: readonly string[];
  };
  /** The names `text` records as excluded for Qwen Code only (`qwenOnlyExcluded`). */
  qwenOnlyExcluded(text: string): ReadonlySet<string>;
  /** Adds the entries (one atomic write). */
  add(moves: readonly MovedServer[]): Promise<void>;
  /** Removes the entries that still hold what setup wrote; names those changed since. */
  remove(moves: readonly MovedServer[]): Promise<readonly string[]>;
  /** Removes the file when it holds no server and nothing else (setup made it, undo ends it). */
  dropIfEmpty(): Promise<void>;
}

export interface PlannedFile {
  readonly before: AgentFile & { readonly kind: 'text' | 'absent' };
  readonly after: string;
  readonly newMode: number;
}

export interface SetupPlan {
  readonly agent: AgentSetup;
  readonly files: readonly PlannedFile[];
  readonly serverFile: {
    readonly path: string;
    readonly before: string | undefined;
    readonly after: string;
    readonly added: readonly MovedServer[];
  };
  readonly moves: readonly MovedServer[];
  readonly notes: readonly string[];
  readonly refusals: readonly string[];
  readonly secrets: readonly Secret[];
  readonly done: boolean;
}

export function realpathOrUndefined(folder: string): string | undefined {
  try {
    return realpathSync(folder);
  } catch {
    return undefined;
  }
}

export async function planSetup(
  agent: AgentSetup,
  ctx: SetupContext,
  side: ServerFileSide,
): Promise<SetupPlan> {
  const files = new Map<string, AgentFile>();
  for (const file of agent.files(ctx)) files.set(file, await readAgentFile(file));
  let server: { exists: boolean; text: string } = { exists: false, text: '' };
  let serverProblem: string | undefined;
  try {
    server = await side.read();
  } catch (err) {
    serverProblem = err instanceof Error ? err.message : String(err);
  }
  const plan = agent.plan(files, { ...ctx, qwenOnlyExcluded: side.qwenOnlyExcluded(server.text) });
  const refusals = [...plan.refusals];
  if (serverProblem !== undefined) refusals.push(serverProblem);
  const planned = side.plan(server.text, plan.moves);
  refusals.push(...planned.refusals);
  const secrets = [...plan.secrets];
  if (ctx.reach.kind === 'http') secrets.push({ value: ctx.reach.token, shown: '<redacted>' });
  const planFiles: PlannedFile[] = [];
  for (const change of plan.changes) {
    const before = files.get(change.path);
    if (before === undefined || before.kind === 'refused') {
      refusals.push(`${change.path}: not read, so not written`);
      continue;
    }
    planFiles.push({ before, after: change.text, newMode: change.newMode ?? 0o644 });
  }
  const refused = refusals.length > 0;
  return {
    agent,
    files: refused ? [] : planFiles,
    serverFile: {
      path: side.path,
      before: server.exists ? server.text : undefined,
      after: refused ? server.text : planned.text,
      added: refused ? [] : planned.added,
    },
    moves: refused ? [] : plan.moves,
    notes: plan.notes,
    refusals,
    secrets,
    done: !refused && planFiles.length === 0 && planned.added.length === 0,
  };
}
