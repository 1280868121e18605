import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Command } from 'commander';
import type { Io } from './command-env.js';
import { SHELLS, completionScript, programModel } from './completion.js';
import { buildProgram } from './program.js';
import { tempDir } from '../testing/temp-dir.js';

const temp = tempDir('mcpctl-completion-');
after(temp.remove);

const io: Io = {
  out: () => undefined,
  err: () => undefined,
  stdoutIsTTY: false,
  stderrIsTTY: false,
};
const program = buildProgram(io, () => undefined);
const model = programModel(program);

/** Is `shell` installed? */
function has(shell: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
}

describe('completion scripts', () => {
  it(
    'the model has every visible command of the program, and no hidden one',
    { timeout: 5000 },
    () => {
      const visible = program.commands
        .filter((c) => !(c as unknown as { _hidden?: boolean })._hidden)
        .map((c) => c.name());
      assert.deepEqual(model.commands.map((c) => c.name).sort(), [...visible].sort());
      assert.ok(!model.commands.some((c) => c.name === '__complete'));
      // A few the user would type, to catch an empty model passing the check above.
      for (const name of ['get', 'logs', 'version', 'completion', 'serve', 'approve', 'wait'])
        assert.ok(visible.includes(name), name);
    },
  );

  for (const shell of SHELLS) {
    it(`${shell}: names every command, its options and get's resources`, { timeout: 5000 }, () => {
      const script = completionScript(model, shell);
      for (const c of program.commands) {
        if (c.name() === '__complete') continue;
        assert.match(script, new RegExp(`\\b${c.name()}\\b`), `command ${c.name()}`);
        for (const o of c.options) {
          // Hidden options (the serve→daemon `--env-from-stdin`) are not offered.
          if (o.long === undefined || o.hidden) continue;
          const written = shell === 'fish' ? `-l ${o.long.slice(2)}` : o.long;
          assert.ok(script.includes(written), `${c.name()} ${o.long}`);
        }
      }
      for (const resource of ['servers', 'languageservers', 'sessions', 'events', 'connections'])
        assert.ok(script.includes(resource), resource);
      assert.ok(script.includes('_mcpctl_daemon names'), 'server names come from the daemon');
    });
  }

  it(
    'the bash script is valid bash (bash -n); zsh and fish when installed',
    { timeout: 10_000 },
    () => {
      for (const shell of SHELLS) {
        const file = path.join(temp.path, `mcpctl.${shell}`);
        writeFileSync(file, completionScript(model, shell));
        if (shell !== 'bash' && !has(shell)) continue; // Not installed here: checked where it is.
        const check = shell === 'fish' ? ['--no-execute', file] : ['-n', file];
        const r = spawnSync(shell, check, { encoding: 'utf8' });
        assert.equal(r.status, 0, `${shell}: ${r.stderr}`);
      }
    },
  );

  it('bash: completes commands, resources and option values', { timeout: 10_000 }, () => {
    const file = path.join(temp.path, 'complete.bash');
    writeFileSync(file, completionScript(model, 'bash'));
    const complete = (line: string): string[] => {
      const words = line.split(' ');
      const script = `source ${JSON.stringify(file)}
COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}
_mcpctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = spawnSync('bash', ['--norc', '-c', script], { encoding: 'utf8', cwd: temp.path });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.split('\n').filter((l) => l !== '');
    };
    assert.deepEqual(complete('mcpctl lo'), ['login', 'logout', 'logs']);
    assert.deepEqual(complete('mcpctl get l'), ['languageservers', 'languageserver', 'lsp']);
    assert.deepEqual(complete('mcpctl --socket /tmp/x get se'), [
      'servers',
      'server',
      'sessions',
      'session',
    ]);
    assert.deepEqual(complete('mcpctl get servers -o y'), ['yaml']);
    assert.ok(complete('mcpctl logs --t').includes('--tail'));
    assert.deepEqual(complete('mcpctl completion z'), ['zsh']);
  });

  it('a word that is not plain is refused, never written into a script', { timeout: 5000 }, () => {
    const hostile = new Command('mcpctl');
    hostile.command('x$(touch pwned)').description('hostile');
    assert.throws(() => programModel(hostile), /refusing to put/);
    const quoted = new Command('mcpctl');
    quoted.command('ok').description("it's fine; $(no)");
    const script = completionScript(programModel(quoted), 'fish');
    assert.ok(script.includes(`'it'\\''s fine; $(no)'`), script);
  });
});
