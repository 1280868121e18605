/**
 * e2e: `npm start` (scripts/start.mjs) and the daemon's log format. The build decision
 * (scripts/dist-current.mjs) on a temporary tree: current, an edited source, a new one, a
 * missing output, tsconfig.json touched. Then the real script: no rebuild when dist/ is
 * current, JSON log lines when piped, the README's next steps once the daemon answers, and a
 * Ctrl-C that stops it (exit 0). And `mcpctl daemon` on a pseudo-terminal (`script -qec`):
 * one readable line per event, no JSON.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CLI, TestEnv } from './harness.js';
import { until } from '../testing/until.js';
import { tempDir } from '../testing/temp-dir.js';

const T = { timeout: 90_000 };
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { staleReason } = (await import(
  new URL('../../scripts/dist-current.mjs', import.meta.url).href
)) as {
  staleReason: (root: string) => string | undefined;
};

describe('npm start (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('builds only when a source is newer than its output, or has none', { timeout: 10_000 }, () => {
    const tree = tempDir('mcpctl-stale-');
    try {
      const at = (file: string, secs: number) => utimesSync(path.join(tree.path, file), secs, secs);
      const write = (file: string, text: string, secs: number) => {
        mkdirSync(path.dirname(path.join(tree.path, file)), { recursive: true });
        writeFileSync(path.join(tree.path, file), text);
        at(file, secs);
      };
      write(
        'tsconfig.json',
        JSON.stringify({ compilerOptions: { outDir: 'dist' }, include: ['src'] }),
        1000,
      );
      write('src/a.ts', 'export {};', 1000);
      write('src/types.d.ts', 'export {};', 5000);
      write('src/node_modules/x.ts', 'export {};', 5000);
      assert.match(staleReason(tree.path) ?? '', /src\/a\.ts has no build output/);
      write('dist/src/a.js', '', 2000);
      assert.equal(staleReason(tree.path), undefined, 'current (.d.ts and node_modules ignored)');
      at('src/a.ts', 3000);
      assert.match(staleReason(tree.path) ?? '', /src\/a\.ts changed after the last build/);
      at('src/a.ts', 1000);
      write('src/b.ts', 'export {};', 1000);
      assert.match(staleReason(tree.path) ?? '', /src\/b\.ts has no build output/);
      rmSync(path.join(tree.path, 'src/b.ts'));
      at('tsconfig.json', 3000);
      assert.match(staleReason(tree.path) ?? '', /tsconfig\.json changed/);
      writeFileSync(path.join(tree.path, 'tsconfig.json'), '{ not json');
      assert.match(staleReason(tree.path) ?? '', /cannot be read/);
    } finally {
      tree.remove();
    }
  });

  it(
    'does not rebuild a current dist/, logs JSON when piped, says what next, stops on Ctrl-C',
    T,
    async () => {
      assert.equal(
        staleReason(ROOT),
        undefined,
        'the tests run on a current build (npm run build)',
      );
      const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs')], {
        cwd: ROOT,
        env: env.env(),
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own group, as a terminal's foreground job: Ctrl-C reaches the script and the daemon.
        detached: true,
      });
      env.trackPid(child.pid);
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const exited = new Promise<number | null>((resolve) =>
        child.on('exit', (code) => resolve(code)),
      );
      await until('the next steps', () => out.includes('mcpctl get servers --watch'), {
        timeoutMs: 60_000,
      });
      assert.match(err, /^npm start: dist\/ is current; not rebuilding\n/);
      assert.doesNotMatch(err, /npm start: building|tsc -p/);
      assert.match(out, /mcpctl is running\. In a second terminal/);
      assert.equal(out.split('mcpctl is running').length, 2, 'said once');
      const logLines = err.split('\n').filter((l) => l !== '' && !l.startsWith('npm start:'));
      assert.ok(logLines.length > 0);
      for (const line of logLines) assert.doesNotThrow(() => JSON.parse(line), line);
      assert.ok(logLines.some((l) => (JSON.parse(l) as { msg?: string }).msg === 'listening'));
      const r = await env.cli(['get', 'sessions', '-o', 'name']);
      assert.equal(r.code, 0, r.stderr);
      // Ctrl-C: the terminal signals the whole group, and npm passes its own SIGINT on.
      process.kill(-(child.pid ?? 0), 'SIGINT');
      process.kill(child.pid ?? 0, 'SIGINT');
      assert.equal(await exited, 0, err.slice(-2000));
      assert.doesNotMatch(err, /second signal/, 'one SIGINT reached the daemon: a graceful stop');
      assert.match(err, /"msg":"bye"/);
    },
  );

  it('mcpctl daemon on a terminal logs one readable line per event', T, async () => {
    const command = [process.execPath, CLI, 'daemon', '--workspace', env.workspace]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: env.workspace,
      env: env.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    env.trackPid(child.pid);
    let screen = '';
    child.stdout.on('data', (c: Buffer) => (screen += c.toString()));
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
    await until('listening', () => /listening/.test(screen), { timeoutMs: 30_000 });
    const stop = await env.cli(['stop']);
    assert.equal(stop.code, 0, stop.stderr);
    await closed;
    const plain = screen.replace(/\u001b\[\d+m/g, '').replace(/\r/g, '');
    assert.match(plain, /^\d\d:\d\d:\d\d INFO  listening socket=\S+ workspace=\S+/m);
    assert.match(plain, /^\d\d:\d\d:\d\d INFO  bye$/m);
    assert.doesNotMatch(plain, /"level":/);
  });
});
