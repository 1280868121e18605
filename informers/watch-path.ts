/**
 * Watching one file path with chokidar, whether or not it (or its directories) exist yet.
 *
 * How: chokidar watches the nearest existing ancestor W of the file's grandparent, with `depth`
 * just deep enough to reach the file and an `ignored` filter that lets through only the chain of
 * paths from W down to the file. Watching from above the file's own directory is what makes a
 * deleted and re-created directory, and `mkdir -p` of a whole missing chain, visible.
 *
 * Guarantees:
 * - onPoke() is called for every add/change/unlink of the exact file and every add/unlink of a
 *   directory on its chain; it carries no data, the caller re-reads the file. Files next to it
 *   that only share a prefix (`settings.json.bak`, `settings.json~`, `.settings.json.swp`) are
 *   filtered out by exact path and never poke.
 * - Editors that save by rename-over or truncate-then-write poke at least once per save; chokidar
 *   may merge pokes 50 ms apart (its change throttle), which the caller's debounce covers.
 * - revalidate() re-roots the watcher when the nearest existing ancestor changed (a missing
 *   directory appeared: promotion; W itself was deleted: demotion), or when chokidar failed to
 *   pick up a directory of the chain (a creation racing its parent's scan). It resolves when the
 *   new watcher is ready, so a read after it sees everything a later event would report.
 * - close() stops every underlying fs watcher; no poke is delivered afterwards.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

export interface PathWatcher {
  readonly file: string;
  /** The directory chokidar is rooted at now, for diagnostics and tests. */
  root(): string | undefined;
  /** Re-root if needed (see the module comment); resolves when the watcher is ready. */
  revalidate(): Promise<void>;
  close(): Promise<void>;
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** `p` itself if it is an existing directory, else its nearest ancestor that is. */
async function nearestExistingDirectory(p: string): Promise<string> {
  let cur = p;
  for (;;) {
    if (await isDirectory(cur)) return cur;
    const up = path.dirname(cur);
    if (up === cur) return cur;
    cur = up;
  }
}

/** Every path from `root` (inclusive) down to `file` (inclusive). */
function chainFrom(root: string, file: string): string[] {
  const rel = path.relative(root, file);
  const parts = rel === '' ? [] : rel.split(path.sep);
  const out = [root];
  for (const part of parts) out.push(path.join(out[out.length - 1] ?? root, part));
  return out;
}

export function watchPath(file: string, onPoke: () => void): PathWatcher {
  const target = path.resolve(file);
  const fileDir = path.dirname(target);
  // The file's grandparent: watching from there sees the file's own directory come and go.
  const anchor = path.dirname(fileDir);
  let watcher: FSWatcher | undefined;
  let rootDir: string | undefined;
  let closed = false;
  let lock: Promise<void> = Promise.resolve();

  const poke = (): void => {
    if (!closed) onPoke();
  };

  /** Is every existing directory of the chain below the root known to chokidar? */
  async function healthy(w: FSWatcher, root: string): Promise<boolean> {
    const watched = w.getWatched();
    for (const dir of chainFrom(root, fileDir).slice(1)) {
      if (!(await isDirectory(dir))) return true;
      const siblings = watched[path.dirname(dir)] ?? [];
      if (!siblings.includes(path.basename(dir))) return false;
    }
    return true;
  }

  async function rebuild(root: string): Promise<void> {
    const old = watcher;
    watcher = undefined;
    if (old) await old.close();
    const chain = chainFrom(root, target);
    const allowed = new Set(chain);
    const w = watch(root, {
      persistent: true,
      ignoreInitial: true,
      // Our own debounce and content diff subsume chokidar's rename heuristics.
      atomic: false,
      ignorePermissionErrors: true,
      // Directories between the root and the file; the file itself needs no extra level.
      depth: Math.max(0, chain.length - 2),
      ignored: (p: string) => !allowed.has(path.resolve(p)),
    });
    w.on('all', poke);
    w.on('raw', (_event, rawPath, details) => {
      // The root itself being deleted is only visible as a raw event of its own fs watcher.
      const watchedPath =
        details !== null && typeof details === 'object' && 'watchedPath' in details
          ? details.watchedPath
          : undefined;
      if (watchedPath === root && path.basename(rawPath) === path.basename(root)) poke();
    });
    // Errors (e.g. EMFILE) are not actionable here; the next poke re-reads and revalidates.
    w.on('error', () => undefined);
    await new Promise<void>((resolve) => w.once('ready', resolve));
    if (closed) {
      await w.close();
      return;
    }
    watcher = w;
    rootDir = root;
  }

  async function revalidateNow(): Promise<void> {
    for (let attempt = 0; attempt < 3 && !closed; attempt++) {
      const root = await nearestExistingDirectory(anchor);
      if (watcher !== undefined && root === rootDir && (await healthy(watcher, root))) return;
      await rebuild(root);
    }
  }

  return {
    file: target,
    root: () => rootDir,
    revalidate() {
      const run = lock.then(revalidateNow);
      lock = run.catch(() => undefined);
      return run;
    },
    async close() {
      closed = true;
      await lock;
      const w = watcher;
      watcher = undefined;
      if (w) await w.close();
    },
  };
}
