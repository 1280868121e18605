/**
 * Whether `dist/` is the build of the sources as they are now, so `npm start` builds only when
 * it must (scripts/start.mjs).
 *
 * Guarantees (correct before fast):
 * - Stale when any source file (`*.ts`, not `*.d.ts`, under tsconfig.json's `include`
 *   folders) has no output (`dist/<same path>.js`), or any source or tsconfig.json is newer
 *   than the oldest of those outputs (tsc writes every output on each build, so the oldest one
 *   is the last build's time): an edited, added or touched source rebuilds.
 * - Reads file times only; never writes. A folder it cannot read counts as stale.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every `.ts` source under `dir` (no `.d.ts`), skipping node_modules and dot folders. */
function sources(dir, found) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sources(full, found);
    else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
      found.push(full);
  }
  return found;
}

/**
 * Why `root`'s dist/ must be rebuilt, or undefined when it is current.
 * @param {string} root the package folder (holding tsconfig.json)
 * @returns {string | undefined}
 */
export function staleReason(root) {
  const tsconfigPath = path.join(root, 'tsconfig.json');
  let config;
  try {
    config = JSON.parse(readFileSync(tsconfigPath, 'utf8'));
  } catch {
    return 'tsconfig.json cannot be read as JSON';
  }
  const outDir = path.join(root, config.compilerOptions?.outDir ?? 'dist');
  const include = Array.isArray(config.include) ? config.include : ['.'];
  let newestSource = statSync(tsconfigPath).mtimeMs;
  let newestName = 'tsconfig.json';
  let oldestOutput = Infinity;
  for (const folder of include) {
    const dir = path.join(root, folder);
    let files;
    try {
      files = statSync(dir).isDirectory() ? sources(dir, []) : [];
    } catch (err) {
      if (err.code === 'ENOENT') continue; // An include folder that does not exist (yet).
      return `${folder} cannot be read (${err.code})`;
    }
    for (const file of files) {
      const rel = path.relative(root, file);
      const out = path.join(outDir, rel.replace(/\.ts$/, '.js'));
      let outTime;
      try {
        outTime = statSync(out).mtimeMs;
      } catch {
        return `${rel} has no build output yet`;
      }
      oldestOutput = Math.min(oldestOutput, outTime);
      const srcTime = statSync(file).mtimeMs;
      if (srcTime > newestSource) {
        newestSource = srcTime;
        newestName = rel;
      }
    }
  }
  if (oldestOutput === Infinity) return 'nothing is built yet';
  if (newestSource > oldestOutput) return `${newestName} changed after the last build`;
  return undefined;
}
