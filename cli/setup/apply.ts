/**
 * Writing a setup plan, and undoing it, with a backup that holds the original bytes.
 *
 * Guarantees:
 * - Before anything is written, the backup is made in `<home>/.mcpctl/backups/<agent>/<time>/`
 *   (folders 0700, files 0600: the files hold tokens): each agent file's original bytes (or
 *   that it did not exist), its mode, the hash of what setup wrote, the folders setup made and
 *   the entries it added to mcpctl's server file (`manifest.json`).
 * - An agent file that changed since it was planned (the agent wrote it meanwhile) stops the
 *   run before anything is written.
 * - An agent file that changed since it was planned (the agent wrote it meanwhile) stops the
 *   run before anything is written.
 * - Writes are atomic (api/private-file.ts `replaceFile`); an existing file keeps its mode. The
 *   server file is written first; when an agent file then fails to be written, what was
 *   written is put back (agent files from the backup, server entries removed), and the error
 *   says so.
 * - `undo` takes the latest backup not yet undone: each agent file is restored byte for byte
 *   (a file setup made is removed, and the folders it made when empty) and the entries setup
 *   added are removed from the server file. A file changed since setup wrote it is not
 *   overwritten unless `force`: the refusal names it and changes nothing.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { replaceFile } from '../../api/index.js';
import { CliError, messageOf } from '../errors.js';
import type { ServerFileSide, SetupPlan } from './planner.js';
import { readAgentFile } from './read-files.js';
import type { AgentId, MovedServer } from './types.js';

interface ManifestFile {
  readonly path: string;
  readonly existed: boolean;
  readonly mode: number;
  /** The original bytes' name in the backup folder (when it existed). */
  readonly backup?: string;
  /** sha256 of the text setup wrote. */
  readonly written: string;
}

interface Manifest {
  readonly agent: AgentId;
  readonly createdAt: string;
  readonly files: readonly ManifestFile[];
  /** Folders setup made, deepest last. */
  readonly madeFolders: readonly string[];
  readonly serverFile: {
    readonly path: string;
    /** False: setup made the server file, and undo removes it when left empty. */
    readonly existed: boolean;
    readonly added: readonly MovedServer[];
  };
}

const MANIFEST = 'manifest.json';
const UNDONE = 'manifest.undone.json';

export function backupRoot(home: string, agent: AgentId): string {
  return path.join(home, '.mcpctl', 'backups', agent);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Folders missing on the way to `folder`, outermost first. */
async function missingFolders(folder: string): Promise<string[]> {
  const missing: string[] = [];
  let at = folder;
  for (;;) {
    const file = await readAgentFile(at);
    if (file.kind !== 'absent') break;
    missing.unshift(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  return missing;
}

/** Refuses when an agent file changed since it was planned (the agent wrote it meanwhile). */
async function checkUnchanged(plan: SetupPlan): Promise<void> {
  for (const f of plan.files) {
    const now = await readAgentFile(f.before.path);
    const same =
      now.kind === f.before.kind &&
      (now.kind !== 'text' || (f.before.kind === 'text' && now.text === f.before.text));
    if (!same)
      throw new CliError(
        `${f.before.path} changed while setup planned (the agent wrote it); nothing was changed: run setup again (best with the agent closed)`,
      );
  }
}

/** Writes `plan` (not refused, not done); returns the backup folder. */
export async function applyPlan(
  plan: SetupPlan,
  home: string,
  side: ServerFileSide,
): Promise<string> {
  await checkUnchanged(plan);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const folder = path.join(backupRoot(home, plan.agent.id), stamp);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const files: ManifestFile[] = [];
  const madeFolders: string[] = [];
  for (const [i, f] of plan.files.entries()) {
    const existed = f.before.kind === 'text';
    const entry: ManifestFile = {
      path: f.before.path,
      existed,
      mode: f.before.kind === 'text' ? f.before.mode : f.newMode,
      written: sha256(f.after),
      ...(existed ? { backup: `file-${i}` } : {}),
    };
    if (f.before.kind === 'text')
      await writeFile(path.join(folder, `file-${i}`), f.before.text, { mode: 0o600, flag: 'wx' });
    if (!existed) madeFolders.push(...(await missingFolders(path.dirname(f.before.path))));
    files.push(entry);
  }
  const manifest: Manifest = {
    agent: plan.agent.id,
    createdAt: new Date().toISOString(),
    files,
    madeFolders,
    serverFile: {
      path: plan.serverFile.path,
      existed: plan.serverFile.before !== undefined,
      added: plan.serverFile.added,
    },
  };
  await writeFile(path.join(folder, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
  if (plan.serverFile.added.length > 0) await side.add(plan.serverFile.added);
  const written: ManifestFile[] = [];
  try {
    for (const [i, f] of plan.files.entries()) {
      const m = files[i];
      await mkdir(path.dirname(m.path), { recursive: true });
      await replaceFile(m.path, f.after, m.mode);
      written.push(m);
    }
  } catch (err) {
    await restoreFiles(folder, written);
    await side.remove(plan.serverFile.added);
    if (plan.serverFile.before === undefined) await side.dropIfEmpty();
    await rename(path.join(folder, MANIFEST), path.join(folder, UNDONE));
    throw new CliError(
      `setup could not write an agent file (${messageOf(err)}); what it had written was put back, nothing changed`,
    );
  }
  return folder;
}

async function restoreFiles(folder: string, files: readonly ManifestFile[]): Promise<void> {
  for (const f of files) {
    if (f.existed && f.backup !== undefined)
      await replaceFile(f.path, await readFile(path.join(folder, f.backup), 'utf8'), f.mode);
    else await rm(f.path, { force: true });
  }
}

/** The latest backup of `agent` not yet undone, or undefined. */
async function latestBackup(home: string, agent: AgentId): Promise<string | undefined> {
  const root = backupRoot(home, agent);
  let names: string[];
  try {
    names = (await readdir(root)).sort().reverse();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const file = await readAgentFile(path.join(root, name, MANIFEST));
    if (file.kind === 'text') return path.join(root, name);
  }
  return undefined;
}

export interface UndoResult {
  readonly folder: string;
  readonly restored: readonly string[];
  readonly removed: readonly string[];
  /** Entries of the server file changed since setup wrote them: left there. */
  readonly kept: readonly string[];
}

/** Undoes the latest setup of `agent` (see the module doc); undefined when there is none. */
export async function undoSetup(
  home: string,
  agent: AgentId,
  side: ServerFileSide,
  force: boolean,
): Promise<UndoResult | undefined> {
  const folder = await latestBackup(home, agent);
  if (folder === undefined) return undefined;
  const manifest = JSON.parse(await readFile(path.join(folder, MANIFEST), 'utf8')) as Manifest;
  const changed: string[] = [];
  for (const f of manifest.files) {
    const now = await readAgentFile(f.path);
    if (now.kind === 'refused') changed.push(`${f.path}: ${now.problem}`);
    else if (now.kind === 'absent' || sha256(now.text) !== f.written) {
      if (!force) changed.push(`${f.path}: changed since setup wrote it`);
    }
  }
  if (changed.length > 0)
    throw new CliError(
      `mcpctl setup --undo: nothing was changed:\n  ${changed.join('\n  ')}\nto restore the backup of ${folder} anyway (losing those changes), run it again with --force`,
    );
  const kept = await side.remove(manifest.serverFile.added);
  if (!manifest.serverFile.existed) await side.dropIfEmpty();
  await restoreFiles(folder, manifest.files);
  for (const dir of [...manifest.madeFolders].reverse()) await rmdir(dir).catch(() => undefined);
  await rename(path.join(folder, MANIFEST), path.join(folder, UNDONE));
  return {
    folder,
    restored: manifest.files.filter((f) => f.existed).map((f) => f.path),
    removed: manifest.files.filter((f) => !f.existed).map((f) => f.path),
    kept,
  };
}
