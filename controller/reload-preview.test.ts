import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DesiredLanguageServer } from '../api/index.js';
import { diffKind, formatDiffLine } from './reload-preview.js';

const server = (name: string, command: string): DesiredLanguageServer => ({
  kind: 'LanguageServer',
  name,
  scope: 'cli',
  source: '/lsp.json',
  config: { command, extensionToLanguage: { '.ts': 'typescript' } },
});

test('one kind: add, keep, restart (which fields), remove, blocked', { timeout: 5000 }, () => {
  const running = new Map([
    ['kept', { connectionId: 'kept::1', config: { command: 'a' } }],
    ['edited', { connectionId: 'edited::1', config: { command: 'a' } }],
    ['gone', { connectionId: 'gone::1', config: { command: 'a' } }],
  ]);
  const servers = {
    added: server('added', 'a'),
    kept: server('kept', 'a'),
    edited: server('edited', 'b'),
    refused: server('refused', 'a'),
  };
  const lines = diffKind<DesiredLanguageServer, { command?: string }>({
    servers,
    recorded: running.keys(),
    live: (name) => running.get(name),
    decide: (s) =>
      s.name === 'refused'
        ? { admitted: false, reason: 'NotAllowed', message: 'not in the ceiling' }
        : { admitted: true, reason: 'NotGated' },
    runtime: (s) => ({
      runnable: true,
      connectionId: `${s.name}::${s.config.command === 'a' ? 1 : 2}`,
    }),
    changed: (live, s) => (live.command === s.config.command ? [] : ['command']),
    label: (name) => `languageserver/${name}`,
  });
  assert.deepEqual(lines.map(formatDiffLine), [
    '+ add languageserver/added',
    '~ restart languageserver/edited (command)',
    '- remove languageserver/gone',
    '= keep languageserver/kept',
    '! blocked languageserver/refused (NotAllowed)',
  ]);
});
