import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HttpAgentSession } from './agent-session.js';
import type { HttpLimits } from './limits.js';
import { HttpSessionTable } from './session-table.js';

/** The fields of a session the table reads. */
function agent(id: string, o: { idle: boolean; streams?: number; lastActive: number }) {
  const a = {
    id,
    idle: o.idle,
    streams: o.streams ?? 0,
    open: 0,
    lastActive: o.lastActive,
    session: undefined,
    onEnd: undefined as (() => void) | undefined,
    close: () => {
      a.onEnd?.();
      return Promise.resolve();
    },
  };
  return a as unknown as HttpAgentSession;
}

function table(maxSessions: number) {
  const lines: string[] = [];
  const limits = { maxSessions, idleSessionMs: 60_000 } as HttpLimits;
  return { sessions: new HttpSessionTable(limits, { info: (_o, msg) => lines.push(msg) }), lines };
}

describe('the HTTP session table', () => {
  it('has room below maxSessions, sessions being opened counted', () => {
    const { sessions } = table(2);
    assert.equal(sessions.makeRoom(), undefined);
    sessions.add(agent('a', { idle: false, lastActive: 1 }));
    sessions.opening();
    assert.equal(sessions.makeRoom(), 'busy');
    sessions.opened();
    assert.equal(sessions.makeRoom(), undefined);
  });

  it('gives the place of the least recently active idle session, one without a GET stream first', () => {
    const { sessions, lines } = table(4);
    sessions.add(agent('busy', { idle: false, lastActive: 0 }));
    sessions.add(agent('streaming', { idle: true, streams: 1, lastActive: 1 }));
    sessions.add(agent('older', { idle: true, lastActive: 2 }));
    sessions.add(agent('newer', { idle: true, lastActive: 3 }));
    const evicted = sessions.makeRoom();
    assert.equal(evicted !== 'busy' && evicted?.id, 'older');
    assert.equal(sessions.get('older'), undefined, 'out of the table at once');
    assert.equal(sessions.size, 3);
    assert.match(lines[0] ?? '', /gives its place to a new one/);
  });

  it('is busy when no session is idle, and then changes nothing', () => {
    const { sessions } = table(1);
    sessions.add(agent('a', { idle: false, lastActive: 0 }));
    assert.equal(sessions.makeRoom(), 'busy');
    assert.equal(sessions.size, 1);
  });

  it('a session leaves the table when it ends', async () => {
    const { sessions, lines } = table(2);
    const a = agent('a', { idle: true, lastActive: 0 });
    sessions.add(a);
    await a.close();
    assert.equal(sessions.size, 0);
    assert.deepEqual(lines, ['http agent session ended']);
  });
});
