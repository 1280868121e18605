/**
 * `npm start`: the quick start's daemon (examples/), built first only when dist/ is not current
 * (scripts/dist-current.mjs), then, once it answers, what to do next.
 *
 * Guarantees:
 * - Builds with `npm run build` when a source changed since the last build, and not otherwise
 *   (one line says which); a failed build starts nothing (its exit code is ours).
 * - The daemon runs in the foreground with this terminal's stderr: readable log lines on a
 *   terminal, JSON lines when piped (`--log-format json` given after `--` forces them).
 * - Once the daemon answers on its socket, the README's second-terminal commands are printed
 *   (read from the README, so they stay what it says), once.
 * - Ctrl-C reaches the daemon once (it stops gracefully, a second signal would end it at once);
 *   SIGTERM or SIGHUP sent to this script alone are passed on; our exit code is the daemon's.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { staleReason } from './dist-current.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const say = (line) => process.stderr.write(`npm start: ${line}\n`);

const stale = staleReason(root);
if (stale) {
  say(`building (${stale})`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
} else say('dist/ is current; not rebuilding');

const main = path.join(root, 'dist', 'cli', 'main.js');
const args = [
  main,
  'daemon',
  '--workspace',
  path.join(root, 'examples', 'workspace'),
  '--mcp-config',
  path.join(root, 'examples', 'mcp-config.json'),
  '--lsp-config',
  path.join(root, 'examples', 'lsp-config.json'),
  ...process.argv.slice(2),
];
const daemon = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
// The terminal's Ctrl-C reaches the daemon itself (same process group), and npm passes its own
// SIGINT to us: passing it on would be the daemon's second signal, which means "exit now". So
// SIGINT is only waited out; SIGTERM and SIGHUP, sent to us alone, are passed on. Either way we
// wait for the daemon's own exit.
process.on('SIGINT', () => undefined);
for (const signal of ['SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    if (daemon.exitCode === null) daemon.kill(signal);
  });
let exited = false;
daemon.on('exit', (code, signal) => {
  exited = true;
  process.exit(code ?? (signal ? 1 : 0));
});

/** The commands of the README's quick start, after "second terminal" (its first sh block). */
function nextSteps() {
  try {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const from = readme.search(/In a second terminal/i);
    const block = from < 0 ? null : /```sh\n([\s\S]*?)```/.exec(readme.slice(from));
    if (block) return block[1].trimEnd();
  } catch {
    // No README: the two commands that matter.
  }
  return 'cd examples/workspace\nnode ../../dist/cli/main.js get servers --watch';
}

async function announceWhenReady() {
  const { connectClient } = await import(
    pathToFileURL(path.join(root, 'dist/cli/rpc/client.js')).href
  );
  const { resolveSocketPath } = await import(
    pathToFileURL(path.join(root, 'dist/cli/rpc/socket-path.js')).href
  );
  const socket = resolveSocketPath({});
  const deadline = Date.now() + 60_000;
  while (!exited && Date.now() < deadline) {
    try {
      const client = await connectClient(socket, 1000, { answerTimeoutMs: 2000 });
      try {
        const status = await client.call('daemon.status', {});
        if (status.pid === daemon.pid) {
          process.stdout.write(
            `\nmcpctl is running. In a second terminal, from ${root}:\n\n${nextSteps()}\n\nCtrl-C here stops it.\n\n`,
          );
          return;
        }
      } finally {
        await client.close();
      }
    } catch {
      // Not answering yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200).unref());
  }
}

void announceWhenReady();
