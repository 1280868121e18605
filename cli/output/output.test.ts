import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  API_VERSION,
  LANGUAGE_SERVER,
  MCP_SERVER,
  type LanguageServer,
  type McpServer,
} from '../../api/index.js';
import { connectionList, serverListOf, type ConnectionObject } from '../objects.js';
import { ageOf, humanDuration, parseDuration } from './age.js';
import { WatchPrinter, formatList } from './format.js';
import {
  connectionPrinter,
  languageServerPrinter,
  serverPrinter,
  serverReason,
} from './printers.js';
import { plain, styleFor } from './style.js';
import { renderTable } from './table.js';

function server(
  name: string,
  conditions: Array<[string, 'True' | 'False' | 'Unknown', string]>,
  extra: Partial<McpServer['status']> = {},
): McpServer {
  return {
    apiVersion: API_VERSION,
    kind: 'McpServer',
    metadata: {
      name,
      generation: 1,
      creationTimestamp: '2024-01-01T00:00:00.000Z',
      annotations: { 'mcpctl.dev/scope': 'user', 'mcpctl.dev/source': '/h/.qwen/settings.json' },
    },
    spec: { command: 'node' },
    status: {
      restarts: 0,
      tools: ['a', 'b'],
      prompts: [],
      conditions: conditions.map(([type, status, reason]) => ({
        type,
        status,
        reason,
        message: '',
        lastTransitionTime: '2024-01-01T00:00:00.000Z',
        observedGeneration: 1,
      })),
      ...extra,
    },
  };
}

const NOW = Date.parse('2024-01-01T00:05:00.000Z');

describe('durations', () => {
  it('prints ages like kubectl', () => {
    assert.equal(humanDuration(45_000), '45s');
    assert.equal(humanDuration(200_000), '3m20s');
    assert.equal(humanDuration(17 * 60_000), '17m');
    assert.equal(humanDuration(125 * 60_000), '125m');
    assert.equal(humanDuration(5 * 3_600_000 + 60_000), '5h1m');
    assert.equal(humanDuration(30 * 3_600_000), '30h');
    assert.equal(humanDuration(3 * 86_400_000 + 3_600_000), '3d1h');
    assert.equal(ageOf('2024-01-01T00:00:00.000Z', NOW), '5m');
    assert.equal(ageOf('garbage', NOW), '<unknown>');
  });

  it('parses --timeout values', () => {
    assert.equal(parseDuration('30s'), 30_000);
    assert.equal(parseDuration('500ms'), 500);
    assert.equal(parseDuration('1m30s'), 90_000);
    assert.equal(parseDuration('2'), 2000);
    assert.equal(parseDuration('0'), 0);
    assert.equal(parseDuration('soon'), undefined);
    assert.equal(parseDuration('30x'), undefined);
    assert.equal(parseDuration(''), undefined);
  });
});

describe('tables', () => {
  it('aligns on the plain text, paints after padding, folds multi-line cells', () => {
    const colour = styleFor({ isTTY: true }, {});
    const out = renderTable(
      ['A', 'B'],
      [
        [{ text: 'x', paint: colour.green }, 'one\n  two'],
        ['long', 'z'],
      ],
    );
    assert.equal(out, 'A      B\n\u001b[32mx\u001b[39m      one two\nlong   z\n');
    assert.equal(styleFor({ isTTY: true }, { NO_COLOR: '1' }).enabled, false);
    assert.equal(styleFor({ isTTY: false }, {}).enabled, false);
  });

  it('REASON explains the state', () => {
    assert.equal(
      serverReason(
        server('a', [
          ['Admitted', 'False', 'PendingApproval'],
          ['Ready', 'False', 'NotAdmitted'],
        ]),
      ),
      'PendingApproval',
    );
    assert.equal(
      serverReason(
        server('a', [
          ['Admitted', 'True', 'NotGated'],
          ['Ready', 'False', 'CrashLoopBackOff'],
        ]),
      ),
      'CrashLoopBackOff',
    );
    assert.equal(
      serverReason(
        server('a', [
          ['Admitted', 'True', 'NotGated'],
          ['Ready', 'True', 'Connected'],
          ['UpToDate', 'False', 'RolloutFailed'],
        ]),
      ),
      'RolloutFailed',
    );
    assert.equal(
      serverReason(
        server('a', [
          ['Admitted', 'True', 'NotGated'],
          ['Ready', 'True', 'Connected'],
          ['UpToDate', 'True', 'Current'],
          ['ToolsPinned', 'False', 'ToolsChanged'],
        ]),
      ),
      'ToolsChanged',
      'a Ready server whose pins hold a changed tool says so',
    );
    assert.equal(
      serverReason(
        server('a', [
          ['Admitted', 'True', 'Approved'],
          ['Ready', 'True', 'Connected'],
        ]),
      ),
      'Connected',
    );
    assert.equal(serverReason(server('a', [])), 'Pending');
  });

  it('prints server lists as table, wide, name, json; says when there is nothing', () => {
    const list = serverListOf(MCP_SERVER, [
      server(
        'fs',
        [
          ['Admitted', 'True', 'NotGated'],
          ['Ready', 'True', 'Connected'],
        ],
        { pid: 42, connectionId: 'fs::0123456789abcdef' },
      ),
    ]);
    const opts = { now: NOW, style: plain };
    assert.equal(
      formatList(list, serverPrinter, 'table', opts).stdout,
      'NAME   SCOPE   ADMITTED   READY   TOOLS   AGE   REASON\nfs     user    True       True    2       5m    Connected\n',
    );
    assert.match(
      formatList(list, serverPrinter, 'wide', opts).stdout,
      /CONNECTION\s+PID\n.*fs::0123456789abcdef\s+42\n$/,
    );
    assert.equal(formatList(list, serverPrinter, 'name', opts).stdout, 'server/fs\n');
    assert.deepEqual(JSON.parse(formatList(list, serverPrinter, 'json', opts).stdout), list);
    assert.deepEqual(
      JSON.parse(formatList(list, serverPrinter, 'json', { ...opts, single: true }).stdout),
      list.items[0],
    );
    assert.match(
      formatList(list, serverPrinter, 'yaml', opts).stdout,
      /^apiVersion: mcpctl.dev\/v1alpha1\nkind: McpServerList\n/,
    );
    const empty = formatList(serverListOf(MCP_SERVER, []), serverPrinter, 'table', opts);
    assert.deepEqual(empty, { stdout: '', stderr: 'No servers found.\n' });
  });

  it('prints language servers: extensions, the reason, and wide the folder', () => {
    const ls = (name: string, ready: boolean, extra: Partial<LanguageServer['status']> = {}) =>
      ({
        apiVersion: API_VERSION,
        kind: 'LanguageServer',
        metadata: {
          name,
          generation: 1,
          creationTimestamp: '2024-01-01T00:00:00.000Z',
          annotations: { 'mcpctl.dev/scope': ready ? 'cli' : 'project' },
        },
        spec: { command: 'x', extensionToLanguage: { '.ts': 'typescript' } },
        status: {
          restarts: 0,
          extensions: ['.ts', '.tsx'],
          conditions: [
            {
              type: 'Admitted',
              status: ready ? 'True' : 'False',
              reason: ready ? 'NotGated' : 'PendingApproval',
              message: '',
              lastTransitionTime: '2024-01-01T00:00:00.000Z',
            },
            {
              type: 'Ready',
              status: ready ? 'True' : 'False',
              reason: ready ? 'Connected' : 'NotAdmitted',
              message: '',
              lastTransitionTime: '2024-01-01T00:00:00.000Z',
            },
          ],
          ...extra,
        },
      }) satisfies LanguageServer;
    const list = serverListOf(LANGUAGE_SERVER, [
      ls('typescript', true, { pid: 7, connectionId: 'typescript::0123', workspaceFolder: '/ws' }),
      ls('bash', false, { extensions: [] }),
    ]);
    const opts = { now: NOW, style: plain };
    assert.equal(
      formatList(list, languageServerPrinter, 'table', opts).stdout,
      [
        'NAME         SCOPE     ADMITTED   READY   EXTENSIONS   AGE   REASON',
        'typescript   cli       True       True    .ts,.tsx     5m    Connected',
        'bash         project   False      False   <none>       5m    PendingApproval',
        '',
      ].join('\n'),
    );
    assert.match(
      formatList(list, languageServerPrinter, 'wide', opts).stdout,
      /CONNECTION\s+PID\s+FOLDER\n.*typescript::0123\s+7\s+\/ws\n/,
    );
    assert.equal(
      formatList(list, languageServerPrinter, 'name', opts).stdout,
      'languageserver/typescript\nlanguageserver/bash\n',
    );
    const empty = formatList(
      serverListOf(LANGUAGE_SERVER, []),
      languageServerPrinter,
      'table',
      opts,
    );
    assert.deepEqual(empty, { stdout: '', stderr: 'No language servers found.\n' });
  });

  it('prints connections like kubectl get pods: who holds each, and how long a drain has left', () => {
    const connection = (
      name: string,
      state: ConnectionObject['status']['state'],
      extra: Partial<ConnectionObject['status']> = {},
      kind: ConnectionObject['spec']['kind'] = 'McpServer',
    ): ConnectionObject => ({
      apiVersion: API_VERSION,
      kind: 'Connection',
      metadata: { name, creationTimestamp: '2024-01-01T00:00:00.000Z' },
      spec: { kind, server: name.split('::')[0] ?? name, connectionId: name },
      status: {
        state,
        pid: 42,
        sessions: ['default', 's2'],
        readyTime: '2024-01-01T00:00:01.000Z',
        tools: 3,
        prompts: 1,
        ...extra,
      },
    });
    const list = connectionList([
      connection('fs::0123456789abcdef', 'Ready'),
      connection('web::fedcba9876543210', 'Draining', {
        pid: null,
        sessions: [],
        drainEndsAt: '2024-01-01T00:05:25.000Z',
      }),
      connection('slow::0000000000000000', 'Connecting', { readyTime: null }),
      connection('ts::1111111111111111', 'Ready', { tools: 0, prompts: 0 }, 'LanguageServer'),
    ]);
    const opts = { now: NOW, style: plain };
    assert.equal(
      formatList(list, connectionPrinter, 'table', opts).stdout,
      [
        'CONNECTION               SERVER   KIND             PID      SESSIONS     STATE                 AGE',
        'fs::0123456789abcdef     fs       McpServer        42       default,s2   Ready                 5m',
        'web::fedcba9876543210    web      McpServer        <none>   <none>       Draining (25s left)   5m',
        'slow::0000000000000000   slow     McpServer        42       default,s2   Connecting            5m',
        'ts::1111111111111111     ts       LanguageServer   42       default,s2   Ready                 5m',
        '',
      ].join('\n'),
    );
    assert.match(
      formatList(list, connectionPrinter, 'wide', opts).stdout,
      /AGE\s+TOOLS\s+PROMPTS\n.*5m\s+3\s+1\n/,
    );
    assert.equal(
      formatList(list, connectionPrinter, 'name', opts).stdout,
      'connection/fs::0123456789abcdef\nconnection/web::fedcba9876543210\nconnection/slow::0000000000000000\nconnection/ts::1111111111111111\n',
    );
    assert.deepEqual(JSON.parse(formatList(list, connectionPrinter, 'json', opts).stdout), list);
    assert.match(
      formatList(list, connectionPrinter, 'yaml', opts).stdout,
      /^apiVersion: mcpctl.dev\/v1alpha1\nkind: ConnectionList\n/,
    );
    const empty = formatList(connectionList([]), connectionPrinter, 'table', opts);
    assert.deepEqual(empty, { stdout: '', stderr: 'No connections found.\n' });
  });

  it('watch tables print one header and never shrink columns', async () => {
    let out = '';
    const w = new WatchPrinter({
      printer: serverPrinter,
      format: 'table',
      write: (t) => (out += t),
      style: plain,
      now: () => NOW,
    });
    w.push('ADDED', server('a', [['Ready', 'True', 'Connected']]));
    w.push('ADDED', server('bbbbbbbb', [['Ready', 'True', 'Connected']]));
    await new Promise((r) => setImmediate(r));
    w.push('MODIFIED', server('a', [['Ready', 'False', 'ConnectFailed']]));
    w.flush();
    const lines = out.trimEnd().split('\n');
    assert.equal(lines.length, 4);
    assert.match(lines[0], /^NAME {7}SCOPE/);
    assert.match(lines[3], /^a {10}user .*ConnectFailed$/);
  });
});
