import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Daemon } from '../../controller/daemon.js';
import type { Session } from '../../controller/session.js';
import { folderDifference, folderSessions } from './folder-sessions.js';
import { severalSessionsLine } from './session-names.js';

type Spec = ReturnType<Daemon['sessions']>[number]['spec'];

/** A daemon with these sessions only: the functions read nothing else of it. */
function daemonOf(list: Array<{ id: string; workspace: string; spec: Partial<Spec> }>) {
  const sessions = list.map((s) => ({
    session: { id: s.id, workspace: s.workspace } as unknown as Session,
    spec: { workspace: s.workspace, ...s.spec } as Spec,
  }));
  const daemon = { sessions: () => sessions } as unknown as Daemon;
  return { daemon, session: (id: string) => sessions.find((s) => s.session.id === id)!.session };
}

describe('the sessions of one folder', { timeout: 10_000 }, () => {
  it('names the variables and flags that keep them apart, never a value', () => {
    const { daemon, session } = daemonOf([
      { id: 'default', workspace: '/ws', spec: {} },
      {
        id: 'ws-a',
        workspace: '/ws',
        spec: { env: { vars: { PATH: '/a', TOKEN: 'secret-a', SHLVL: '1' }, label: 'a' } },
      },
      {
        id: 'ws-b',
        workspace: '/ws',
        spec: {
          env: {
            vars: { PATH: '/a', TOKEN: 'secret-b', 'BAD\u001b[2J': 'x', SHLVL: '7' },
            label: 'b',
          },
          mcpConfigPath: '/own.json',
        },
      },
      { id: 'other', workspace: '/elsewhere', spec: {} },
    ]);
    assert.deepEqual(folderSessions(daemon, session('ws-a')), ['default', 'ws-a', 'ws-b']);
    const why = folderDifference(daemon, session('ws-a'));
    assert.equal(
      why,
      `they differ in --mcp-config, the environment ("BAD\\u001b[2J", TOKEN), whose environment it is (an agent's or the daemon's own)`,
    );
    assert.ok(!why.includes('secret'), 'no value');
    assert.ok(!why.includes('SHLVL'), "one terminal's variables are not a difference");
    const line = severalSessionsLine('ws-a', folderSessions(daemon, session('ws-a')), why);
    assert.match(
      line,
      /^this folder has 3 sessions \(default, ws-a, ws-b\); they differ in .*; showing ws-a: choose one with --session NAME, or all with -A\n$/,
    );
    assert.equal(folderDifference(daemon, session('other')), '');
    assert.equal(severalSessionsLine('other', ['other'], ''), '');
  });

  it('names at most six variables', () => {
    const vars = (v: string) =>
      Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`V${i}`, v]));
    const { daemon, session } = daemonOf([
      { id: 'a', workspace: '/ws', spec: { env: { vars: vars('1'), label: 'a' } } },
      { id: 'b', workspace: '/ws', spec: { env: { vars: vars('2'), label: 'b' } } },
    ]);
    assert.equal(
      folderDifference(daemon, session('a')),
      'they differ in the environment (V0, V1, V2, V3, V4, V5 and 3 more)',
    );
  });
});
