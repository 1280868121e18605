import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../errors.js';
import { serverPrinter } from '../output/printers.js';
import { styleFor } from '../output/style.js';
import type { McpServer } from '../objects.js';
import { checkAllSessions, sessionOf, withSessionColumn } from './all-sessions.js';

describe('-A', () => {
  it('refuses what it cannot go with, as bad usage naming the pair', () => {
    assert.doesNotThrow(() => checkAllSessions({ allSessions: true }));
    assert.doesNotThrow(() => checkAllSessions({ session: 'x', watch: true }));
    assert.throws(
      () => checkAllSessions({ allSessions: true, session: 'x' }),
      (e: unknown) => e instanceof UsageError && /--session/.test(e.message),
    );
    assert.throws(
      () => checkAllSessions({ allSessions: true, watch: true }),
      (e: unknown) => e instanceof UsageError && /--watch/.test(e.message),
    );
    assert.throws(
      () => checkAllSessions({ allSessions: true, daemonWide: 'sessions' }),
      (e: unknown) => e instanceof UsageError && /sessions/.test(e.message),
    );
  });

  it('prints a first SESSION column from the annotation, and keys a row by its session', () => {
    const server = (session: string | undefined) =>
      ({
        metadata: {
          name: 'files',
          creationTimestamp: new Date(0).toISOString(),
          annotations: session ? { 'mcpctl.dev/session': session } : {},
        },
        spec: {},
        status: { conditions: [], tools: [] },
      }) as unknown as McpServer;
    const printer = withSessionColumn(serverPrinter);
    assert.deepEqual(printer.headers(false).slice(0, 2), ['SESSION', 'NAME']);
    const style = styleFor({ isTTY: false });
    assert.equal(printer.row(server('default'), 0, false, style)[0], 'default');
    assert.equal(printer.row(server(undefined), 0, false, style)[0], '<none>');
    assert.notEqual(printer.key(server('a')), printer.key(server('b')), 'one name, two sessions');
    assert.equal(sessionOf(server('a')), 'a');
    assert.equal(printer.name(server('a')), 'server/files');
  });
});
