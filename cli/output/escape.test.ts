import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { API_VERSION, escapeField, MCP_SERVER, type McpServer } from '../../api/index.js';
import { terminalSafeIo, type Io } from '../command-env.js';
import { run } from '../program.js';
import { serverListOf, type McpEvent } from '../objects.js';
import { describeServer } from './describe.js';
import { escapeText, json, yaml } from './escape.js';
import { formatList } from './format.js';
import { eventPrinter, serverPrinter } from './printers.js';
import { plain, styleFor } from './style.js';
import { renderTable } from './table.js';

/** What must never reach a terminal raw: ESC, BEL, DEL, CSI (C1), bidi, zero-width, tags. */
const RAW =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff\u{e0000}-\u{e007f}]/u;
const OSC52 = 'x\u001b]52;c;SGVsbG8=\u0007y';
const CLEAR = 'a\u001b[2Jb';
const NASTY = [
  OSC52,
  CLEAR,
  'c\u009b2Jd',
  'e\u202ef',
  'g\u2066h',
  'i\u007fj',
  'k\rl',
  'm\nn',
  'o\u200bp\ufeff',
  'q\u{e0041}r',
];

function server(name: string, tools: string[], message = ''): McpServer {
  return {
    apiVersion: API_VERSION,
    kind: 'McpServer',
    metadata: {
      name,
      generation: 1,
      creationTimestamp: '2024-01-01T00:00:00.000Z',
      annotations: { 'mcpctl.dev/scope': 'user', 'mcpctl.dev/source': '/h/.qwen/settings.json' },
    },
    spec: { command: 'node', args: [OSC52] },
    status: {
      restarts: 0,
      tools,
      prompts: [],
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'ConnectFailed',
          message,
          lastTransitionTime: '2024-01-01T00:00:00.000Z',
          observedGeneration: 1,
        },
      ],
    },
  };
}

describe('escapeField / escapeText', { timeout: 10_000 }, () => {
  it('makes every control character visible', () => {
    assert.equal(escapeField(OSC52), 'x\\x1b]52;c;SGVsbG8=\\x07y');
    assert.equal(escapeField(CLEAR), 'a\\x1b[2Jb');
    assert.equal(escapeField('c\u009b2Jd'), 'c\\x9b2Jd');
    assert.equal(escapeField('e\u202ef\u2069'), 'e\\u202ef\\u2069');
    assert.equal(escapeField('i\u007fj\u0000'), 'i\\x7fj\\x00');
    assert.equal(escapeField('k\r\n\tl'), 'k\\r\\n\\tl');
    assert.equal(escapeField('plain ünïcode 名前 🙂'), 'plain ünïcode 名前 🙂');
  });

  it('keeps layout in whole texts, and our own colours only when asked', () => {
    assert.equal(escapeText(`line\n\tnext ${CLEAR}`), 'line\n\tnext a\\x1b[2Jb');
    const green = styleFor({ isTTY: true }, {}).green('ok');
    assert.equal(escapeText(green), '\\x1b[32mok\\x1b[39m');
    assert.equal(escapeText(`${green} ${CLEAR}`, { keepOwnSgr: true }), `${green} a\\x1b[2Jb`);
    // A colour code that is not ours (here 35, magenta) is data: escaped.
    assert.equal(escapeText('\u001b[35mx', { keepOwnSgr: true }), '\\x1b[35mx');
  });
});

describe('json and yaml output', { timeout: 10_000 }, () => {
  const value = { items: NASTY.map((name) => ({ name, [name]: [name] })) };

  it('json is exact and carries control characters only as escapes', () => {
    const text = json(value);
    assert.doesNotMatch(text.replace(/\n/g, ''), RAW);
    assert.deepEqual(JSON.parse(text), value);
    assert.equal(escapeText(text), text, 'the terminal guard changes nothing');
  });

  it('yaml is exact and carries control characters only as escapes', () => {
    const text = yaml(value);
    assert.doesNotMatch(text.replace(/\n/g, ''), RAW);
    assert.deepEqual(parseYaml(text), value);
    assert.equal(escapeText(text), text, 'the terminal guard changes nothing');
    assert.equal(yaml({ a: 'plain', n: 1 }), 'a: plain\nn: 1\n');
  });
});

describe('human printers escape every value', { timeout: 10_000 }, () => {
  const list = serverListOf(
    MCP_SERVER,
    NASTY.map((n) => server(n, [n], `failed\nstderr:\n  ${OSC52}`)),
  );

  it('tables, -o name and describe', () => {
    const outputs = [
      renderTable(['A', 'B'], [[OSC52, { text: CLEAR, paint: (t) => t }]]),
      formatList(list, serverPrinter, 'table', { now: 0, style: plain }).stdout,
      formatList(list, serverPrinter, 'wide', { now: 0, style: plain }).stdout,
      formatList(list, serverPrinter, 'name', { now: 0, style: plain }).stdout,
      describeServer(
        {
          server: list.items[0],
          disclosure: {
            fields: [['command', OSC52]],
            inputs: [['env', CLEAR]],
            sends: NASTY,
            warnings: [CLEAR],
          },
          stderr: NASTY,
          events: [],
          sessionConditions: [
            {
              type: 'ConfigValid',
              status: 'False',
              reason: 'ParseError',
              message: OSC52,
              lastTransitionTime: '',
            },
          ],
        },
        0,
        styleFor({ isTTY: true }, {}),
      ),
    ];
    for (const out of outputs) {
      assert.doesNotMatch(out.replace(/\u001b\[(?:1|2|22|31|32|33|39)m/g, ''), RAW, out);
    }
    const names = formatList(list, serverPrinter, 'name', { now: 0, style: plain }).stdout;
    assert.equal(names.split('\n').length, NASTY.length + 1, 'one line per server');
    assert.match(names, /^server\/x\\x1b\]52;c;SGVsbG8=\\x07y$/m);
  });

  it('events', () => {
    const events: { apiVersion: string; kind: string; items: McpEvent[] } = {
      apiVersion: API_VERSION,
      kind: 'EventList',
      items: [
        {
          type: 'Warning',
          reason: 'ConnectFailed',
          message: `stderr: ${OSC52}`,
          involvedObject: `server/${CLEAR}`,
          count: 1,
          firstTimestamp: '2024-01-01T00:00:00.000Z',
          lastTimestamp: '2024-01-01T00:00:00.000Z',
        },
      ],
    };
    for (const format of ['table', 'wide', 'name'] as const) {
      const out = formatList(events, eventPrinter, format, { now: 0, style: plain }).stdout;
      assert.doesNotMatch(out, RAW, out);
    }
  });
});

describe('the terminal guard of every command', { timeout: 10_000 }, () => {
  it('escapes whatever a command writes, keeping our colours on a terminal', () => {
    let out = '';
    let err = '';
    const io: Io = {
      out: (t) => (out += t),
      err: (t) => (err += t),
      stdoutIsTTY: false,
      stderrIsTTY: false,
    };
    const safe = terminalSafeIo(io);
    safe.out(`${OSC52}\n`);
    safe.err(`${CLEAR}\n`);
    assert.equal(out, 'x\\x1b]52;c;SGVsbG8=\\x07y\n');
    assert.equal(err, 'a\\x1b[2Jb\n');
  });

  it('is what run() writes through (a usage error quoting the argument)', async () => {
    let all = '';
    const io: Io = {
      out: (t) => (all += t),
      err: (t) => (all += t),
      stdoutIsTTY: false,
      stderrIsTTY: false,
    };
    const { code } = await run(['node', 'mcpctl', `nope${OSC52}`], io);
    assert.equal(code, 2);
    assert.match(all, /nopex\\x1b\]52/);
    assert.doesNotMatch(all, RAW);
  });
});
