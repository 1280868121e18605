// Runs every compiled *.test.js under dist/ with node:test.
// Usage: node scripts/run-tests.mjs [folder-or-file-filter ...]
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
// MCPCTL_DIST lets parallel builds use their own output folder.
const dist = process.env.MCPCTL_DIST ? join(root, process.env.MCPCTL_DIST) : join(root, 'dist');
const filters = process.argv.slice(2);

function walk(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (entry.endsWith('.test.js')) out.push(full);
  }
  return out;
}

const files = walk(dist)
  .filter((f) => filters.length === 0 || filters.some((p) => relative(dist, f).startsWith(p)))
  .sort();
if (files.length === 0) {
  console.error('no test files found under dist/ (did the build run?)');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--test', '--test-timeout=120000', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, MCPCTL_TEST: '1' } },
);
process.exit(result.status ?? 1);
