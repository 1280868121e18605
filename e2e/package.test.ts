/**
 * e2e: mcpctl as a user gets it from the registry. The built tree is packed (`npm pack`, no
 * scripts: the test never rebuilds the dist/ other tests run from), the tarball installed with
 * `npm install --global` into a prefix in the test's temp dir, and the INSTALLED `mcpctl` is
 * run: `--version`, `serve --no-daemon` and `serve` with the daemon it starts, each with the
 * real server-everything (from this repository's node_modules, by absolute path in an
 * `--mcp-config`) through an SDK client.
 *
 * Also asserted: the tarball holds only what runs (no test, source, map, bench, e2e or testing
 * file); secret-looking files beside the build (`.env`, `*.log`, `.mcpctl/`) are never packed,
 * because `files` is an allowlist; every package a shipped file loads is a runtime dependency
 * and resolves from the installed package alone, and every runtime dependency is loaded.
 *
 * HOME is the temp dir's (TestEnv); npm reads the machine's cache (see npm-package.ts).
 * Everything installed is removed with the temp dir.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TestEnv, processesMentioning, untilTools } from './harness.js';
import { installGlobal, npmEnv, pack, type PackResult } from './npm-package.js';
import { makeFifo, releaseReaders } from '../testing/fifo.js';
import { importsOf, isBare, packageOf } from '../testing/module-imports.js';
import { textOf } from '../testing/tool-results.js';
import { until } from '../testing/until.js';

const T = { timeout: 60_000 };
const run = promisify(execFile);

/** The repository: two folders up from this compiled file (dist/e2e/). */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PKG = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  readonly version: string;
  readonly dependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
};
const requireHere = createRequire(import.meta.url);
const EVERYTHING_SERVER = path.join(
  path.dirname(requireHere.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/**
 * A path the tarball may hold: the built production modules (no dot file: a tool's stray
 * `.env.js` or `.mcpctl/` in dist/ is not ours), and the three package files.
 */
function mayShip(file: string): boolean {
  if (['package.json', 'README.md', 'LICENSE'].includes(file)) return true;
  return (
    /^dist\/.+\.js$/.test(file) &&
    !/(^|\/)\./.test(file) &&
    !file.endsWith('.test.js') &&
    !/(^|\/)testing\//.test(file) &&
    !/^dist\/(e2e|bench)\//.test(file)
  );
}

/** This build's production modules (what `files` should select), relative to the repo. */
function builtProductionModules(dir = path.join(ROOT, 'dist')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return builtProductionModules(full);
    const file = path.relative(ROOT, full).split(path.sep).join('/');
    return mayShip(file) ? [file] : [];
  });
}

describe('the package: packed, installed with npm install -g, run', { timeout: 300_000 }, () => {
  let env: TestEnv;
  let packed: PackResult;
  let installMs: number;
  /** The installed package folder and its `mcpctl` command. */
  let installed: string;
  let bin: string;
  /** The test env, with this node first on PATH so the shebang finds it. */
  let agentEnv: Record<string, string>;

  before(
    async () => {
      env = new TestEnv();
      const npmEnvironment = await npmEnv(env.home);
      const packDir = path.join(env.root, 'pack');
      const prefix = path.join(env.root, 'prefix');
      mkdirSync(packDir);
      mkdirSync(prefix);
      packed = await pack(ROOT, packDir, npmEnvironment);
      installMs = await installGlobal(path.join(packDir, packed.filename), prefix, npmEnvironment);
      installed = path.join(prefix, 'lib', 'node_modules', 'mcpctl');
      bin = path.join(prefix, 'bin', 'mcpctl');
      const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`;
      agentEnv = env.env({ PATH }) as Record<string, string>;
    },
    { timeout: 240_000 },
  );
  after(async () => {
    await env?.cleanup();
  });

  it('the tarball holds every production module and nothing else', T, (t) => {
    const files = packed.files.map((f) => f.path).sort();
    t.diagnostic(
      `tarball ${packed.size} B, unpacked ${packed.unpackedSize} B, ${packed.entryCount} files; install ${installMs} ms`,
    );
    assert.deepEqual(
      files.filter((f) => !mayShip(f)),
      [],
      'files the tarball must not hold',
    );
    for (const pattern of [/\.test\.js$/, /\.ts$/, /\.map$/, /(^|\/)(e2e|bench|testing)\//])
      assert.deepEqual(
        files.filter((f) => pattern.test(f)),
        [],
        String(pattern),
      );
    for (const needed of ['LICENSE', 'README.md', 'package.json', 'dist/cli/main.js'])
      assert.ok(files.includes(needed), `the tarball holds ${needed}`);
    const built = builtProductionModules();
    assert.deepEqual(
      built.filter((f) => !files.includes(f)),
      [],
      'production modules of the build left out of the tarball',
    );
  });

  it(
    'secret-looking, test and source files, links and FIFOs beside a build are never packed (files is an allowlist)',
    T,
    async () => {
      const dir = path.join(env.root, 'hostile');
      const put = (file: string, text = '// x\n') => {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      };
      for (const file of ['package.json', 'README.md', 'LICENSE'])
        put(file, readFileSync(path.join(ROOT, file), 'utf8'));
      put('dist/cli/main.js', '#!/usr/bin/env node\n');
      const secret = 'TOKEN=never-ship-me\n';
      for (const file of [
        '.env',
        '.env.local',
        'npm-debug.log',
        'mcpctl-daemon.log',
        '.mcpctl/mcpctl.token',
        '.npmrc',
        'dist/.env',
        'dist/cli/daemon.log',
        'dist/.mcpctl/token.js',
        'dist/cli/.secret.js',
        'dist/cli/main.js.map',
        'dist/cli/main.d.ts',
        'dist/cli/main.test.js',
        'dist/pool/testing/agents.js',
        'dist/testing/until.js',
        'dist/e2e/harness.js',
        'dist/bench/main.js',
        'cli/main.ts',
        'node_modules/left/index.js',
        'examples/node_modules/left/index.js',
      ])
        put(file, secret);
      // A link in dist/ to a secret outside it: npm must not pack what it points to.
      put('outside/secret.txt', secret);
      symlinkSync(
        path.join(dir, 'outside', 'secret.txt'),
        path.join(dir, 'dist', 'cli', 'leak.js'),
      );
      // A FIFO where a module should be: packing neither waits on it nor ships it.
      const fifo = path.join(dir, 'dist', 'cli', 'fifo.js');
      makeFifo(fifo);
      const npmEnvironment = await npmEnv(env.home);
      const result = await pack(dir, dir, npmEnvironment, { dryRun: true }).finally(() =>
        releaseReaders([fifo]),
      );
      assert.deepEqual(result.files.map((f) => f.path).sort(), [
        'LICENSE',
        'README.md',
        'dist/cli/main.js',
        'package.json',
      ]);
    },
  );

  it('the installed mcpctl runs by its shebang and prints the package version', T, async () => {
    const target = realpathSync(bin);
    assert.equal(target, path.join(realpathSync(installed), 'dist', 'cli', 'main.js'));
    assert.ok((statSync(target).mode & 0o111) !== 0, `${target} is executable`);
    assert.match(readFileSync(target, 'utf8'), /^#!\/usr\/bin\/env node\n/);
    const { stdout } = await run(bin, ['--version'], { env: agentEnv, cwd: env.workspace });
    assert.equal(stdout.trim(), PKG.version);
  });

  it(
    'every package a shipped file loads is a runtime dependency that resolves from the install alone, and every runtime dependency is loaded',
    T,
    async () => {
      const shipped = new Set(packed.files.map((f) => f.path));
      const loadedBy = new Map<string, string>();
      const bare = new Set<string>();
      const problems: string[] = [];
      for (const file of [...shipped].filter((f) => f.endsWith('.js'))) {
        const { specifiers, unknown } = importsOf(
          file,
          readFileSync(path.join(installed, file), 'utf8'),
        );
        for (const call of unknown) problems.push(`${file}: a load this test cannot read: ${call}`);
        for (const specifier of specifiers) {
          if (specifier.startsWith('.')) {
            const target = path.posix.join(path.posix.dirname(file), specifier);
            if (!shipped.has(target))
              problems.push(`${file} imports ${specifier}, which the tarball does not hold`);
          } else if (isBare(specifier)) {
            bare.add(specifier);
            if (!loadedBy.has(packageOf(specifier))) loadedBy.set(packageOf(specifier), file);
          }
        }
      }
      for (const [name, file] of loadedBy)
        if (PKG.dependencies[name] === undefined)
          problems.push(
            `${file} loads ${name}, which is not in dependencies${PKG.devDependencies[name] === undefined ? '' : ' (only in devDependencies)'}: npm install -g would not install it`,
          );
      for (const name of Object.keys(PKG.dependencies))
        if (!loadedBy.has(name))
          problems.push(
            `dependency ${name} is loaded by no shipped file: move it to devDependencies`,
          );
      assert.deepEqual(problems, []);

      // Resolved from inside the installed package: only what npm installed there can answer.
      const probe = path.join(installed, 'resolve-probe.mjs');
      writeFileSync(
        probe,
        `const failed = [];\nfor (const s of JSON.parse(process.argv[2])) {\n  try { import.meta.resolve(s); } catch (err) { failed.push(s + ': ' + err.message); }\n}\nprocess.stdout.write(JSON.stringify(failed));\n`,
      );
      const { stdout } = await run(process.execPath, [probe, JSON.stringify([...bare])], {
        cwd: env.root,
        env: agentEnv,
      });
      assert.deepEqual(JSON.parse(stdout), [], 'specifiers that do not resolve in the install');
    },
  );

  /** An SDK client on the installed `mcpctl serve` with server-everything in an --mcp-config. */
  async function installedServe(
    args: readonly string[],
  ): Promise<{ client: Client; stderr: () => string }> {
    const config = path.join(env.root, 'mcp-config.json');
    env.write(config, {
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER] } },
    });
    const transport = new StdioClientTransport({
      command: bin,
      args: ['serve', '--workspace', env.workspace, '--mcp-config', config, ...args],
      env: agentEnv,
      cwd: env.workspace,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'package-e2e', version: '1.0.0' });
    await client.connect(transport);
    env.trackPid(transport.pid ?? undefined);
    return { client, stderr: () => stderr };
  }

  async function listAndCall(client: Client, stderr: () => string): Promise<void> {
    await untilTools(
      client,
      'server-everything through the installed serve',
      (n) => n.includes('everything__echo'),
      { stderr, timeoutMs: 30_000 },
    );
    const result = await client.callTool({
      name: 'everything__echo',
      arguments: { message: 'from the tarball' },
    });
    assert.match(textOf(result), /from the tarball/);
  }

  it(
    'the installed serve --no-daemon serves server-everything: list tools, call one',
    T,
    async () => {
      const { client, stderr } = await installedServe(['--no-daemon']);
      try {
        await listAndCall(client, stderr);
      } finally {
        await client.close();
      }
    },
  );

  it(
    'the installed serve starts the installed daemon, and the installed stop ends it',
    T,
    async () => {
      const { client, stderr } = await installedServe([]);
      try {
        await listAndCall(client, stderr);
        const main = path.join(installed, 'dist', 'cli', 'main.js');
        const daemons = processesMentioning(env.socket).filter((pid) =>
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('daemon'),
        );
        assert.equal(daemons.length, 1, `one daemon on ${env.socket}`);
        const [daemon] = daemons;
        assert.ok(
          readFileSync(`/proc/${daemon}/cmdline`, 'utf8').split('\0').includes(main),
          `the daemon runs the installed ${main}`,
        );
      } finally {
        await client.close();
      }
      await run(bin, ['stop'], { env: agentEnv, cwd: env.workspace });
      await until('the daemon to end', () => processesMentioning(env.socket).length === 0, {
        timeoutMs: 15_000,
      });
    },
  );
});
