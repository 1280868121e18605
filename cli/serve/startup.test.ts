/**
 * An agent starts `mcpctl serve` at the start of every session and waits for it: with a daemon,
 * serve is a pipe, so what it loads before it can answer must be the command line and the pipe,
 * never the controller, the pool, the informers, the approvals or the gateway (together they
 * took serve's start from about 0.2 s to 0.4 s). Checked on the built files: every module
 * reached through static imports from the executable and from serve's entry.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const BUILD = fileURLToPath(new URL('../../', import.meta.url));

/** Relative modules a built file imports statically (`import … from`, `export … from`). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/gms))
    out.push(path.resolve(path.dirname(file), m[1] ?? ''));
  for (const m of text.matchAll(/^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm))
    out.push(path.resolve(path.dirname(file), m[1] ?? ''));
  return out;
}

function reachable(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...entries];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    todo.push(...staticImports(file));
  }
  return seen;
}

test('serve with a daemon loads no controller, pool, informer, approval or gateway module', () => {
  const entries = ['cli/main.js', 'cli/serve/run.js'].map((f) => path.join(BUILD, f));
  const loaded = [...reachable(entries)].map((f) => path.relative(BUILD, f));
  assert.ok(loaded.includes(path.join('cli', 'serve', 'pipe.js')), 'the walk follows imports');
  const heavy = loaded.filter((f) =>
    ['controller', 'pool', 'informers', 'approvals', 'gateway'].includes(
      f.split(path.sep)[0] ?? '',
    ),
  );
  assert.deepEqual(heavy, []);
});

test('the in-process serve (--no-daemon) is where the gateway is loaded', () => {
  const loaded = [...reachable([path.join(BUILD, 'cli/serve/in-process.js')])].map((f) =>
    path.relative(BUILD, f),
  );
  assert.ok(loaded.includes(path.join('gateway', 'index.js')));
  assert.ok(loaded.some((f) => f.startsWith(`controller${path.sep}`)));
});
