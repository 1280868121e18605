import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { until } from '../testing/until.js';
import { GroupStdioTransport, type GroupStdioTransportOptions } from './stdio-transport.js';
import { DEFAULT_TRAFFIC_LIMITS, TrafficGuard } from './traffic.js';
import { fixtureConfig, readPid, STDIO_FIXTURE, tempDir } from './testing/fixtures.js';
import { pidAlive } from '../proc/index.js';

const T = { timeout: 30_000 };

function transportFor(args: string[], graceMs = 300): GroupStdioTransport {
  const config = fixtureConfig(args);
  return new GroupStdioTransport({ command: config.command ?? '', args: config.args, graceMs });
}

test('the child runs in its own process group', T, async () => {
  const t = transportFor([]);
  try {
    await t.start();
    const pid = t.pid ?? -1;
    assert.ok(pid > 0);
    // kill(-pid, 0) succeeds only if a group with id pid exists: the child leads its own.
    assert.doesNotThrow(() => process.kill(-pid, 0));
  } finally {
    await t.close();
  }
});

test(
  'a server that ignores SIGTERM and stdin end is gone within 2 graces + SIGKILL',
  T,
  async () => {
    const grace = 300;
    const dir = tempDir();
    const pidFile = dir.file('pid');
    const t = transportFor(
      ['--ignore-sigterm', '--ignore-stdin-end', `--pid-file=${pidFile}`],
      grace,
    );
    let closes = 0;
    t.onclose = () => {
      closes += 1;
    };
    try {
      await t.start();
      const pid = t.pid ?? -1;
      // The pid file is written once its SIGTERM handler is in place.
      assert.equal(await readPid(pidFile), pid);
      const started = Date.now();
      await t.close();
      const took = Date.now() - started;
      assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
      assert.ok(
        took >= 2 * grace - 20,
        `took ${took} ms: SIGTERM alone did not end it, so both graces passed`,
      );
      assert.ok(took < 2 * grace + 2000, `took ${took} ms`);
      assert.equal(t.exit?.signal, 'SIGKILL');
      assert.equal(closes, 1);
    } finally {
      await t.close();
      dir.remove();
    }
  },
);

test('a well-behaved server leaves on stdin end, before any signal', T, async () => {
  const dir = tempDir();
  const t = transportFor([`--pid-file=${dir.file('pid')}`], 2000);
  try {
    await t.start();
    await readPid(dir.file('pid'));
    const started = Date.now();
    await t.close();
    assert.ok(Date.now() - started < 1500, 'no grace was needed');
    assert.equal(t.exit?.code, 0);
    assert.equal(t.exit?.signal, null);
  } finally {
    await t.close();
    dir.remove();
  }
});

test('grandchildren in the group are gone after close', T, async () => {
  const dir = tempDir();
  const t = transportFor([`--grandchild-pid-file=${dir.file('gc')}`]);
  try {
    await t.start();
    const grandchild = await readPid(dir.file('gc'));
    assert.ok(pidAlive(grandchild));
    await t.close();
    assert.throws(() => process.kill(grandchild, 0), { code: 'ESRCH' });
    assert.throws(() => process.kill(-(t.pid ?? -1), 0), { code: 'ESRCH' });
  } finally {
    await t.close();
    dir.remove();
  }
});

test('a grandchild that left the group (setsid) is gone after close, and reported', T, async () => {
  const dir = tempDir();
  const config = fixtureConfig([`--detached-grandchild-pid-file=${dir.file('gc')}`]);
  const descendants: number[] = [];
  const gone: number[] = [];
  const t = new GroupStdioTransport({
    command: config.command ?? '',
    args: config.args,
    graceMs: 300,
    onDescendant: (pid) => descendants.push(pid),
    onGone: (pid) => gone.push(pid),
  });
  let grandchild = -1;
  try {
    await t.start();
    grandchild = await readPid(dir.file('gc'));
    assert.ok(pidAlive(grandchild));
    assert.doesNotThrow(() => process.kill(-grandchild, 0), 'it leads a group of its own');
    await t.close();
    assert.deepEqual(descendants, [grandchild]);
    // Ended by close; a moment more for its new parent (PID 1) to reap the zombie.
    await until('the escaped grandchild ended with its server', () => !pidAlive(grandchild), {
      timeoutMs: 5000,
    });
    assert.deepEqual(gone.sort(), [grandchild, t.pid ?? -1].sort());
  } finally {
    await t.close();
    if (pidAlive(grandchild)) process.kill(grandchild, 'SIGKILL');
    dir.remove();
  }
});

test('an unexpected exit is reported once through onerror and onclose', T, async () => {
  const t = transportFor(['--exit-after=300', '--exit-code=5']);
  const errors: string[] = [];
  let closes = 0;
  t.onerror = (e) => errors.push(e.message);
  t.onclose = () => {
    closes += 1;
  };
  try {
    await t.start();
    await until('the exit to close the transport', () => closes === 1, { timeoutMs: 5000 });
    assert.deepEqual(errors, ['process exited with code 5']);
    await t.close();
    assert.equal(closes, 1, 'close after an exit does not call onclose again');
    assert.ok(t.stderrTail().includes('exiting after 300 ms as asked'));
  } finally {
    await t.close();
  }
});

test('stderr keeps the last 200 lines', T, async () => {
  const t = transportFor(['--stderr-lines=250']);
  try {
    await t.start();
    await until('stderr line 250', () => t.stderrTail().includes('stderr line 250'), {
      timeoutMs: 5000,
    });
  } finally {
    await t.close();
  }
  const tail = t.stderrTail();
  assert.equal(tail.length, 200);
  assert.equal(tail[0], 'stderr line 51');
  assert.equal(tail[199], 'stderr line 250');
});

test('a stdout line that is not JSON-RPC is noted, not fatal', T, async () => {
  const script = [
    "process.stdout.write('hello, I log to stdout\\n');",
    'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: 1 } }) + "\\n");',
    "process.stdin.on('end', () => process.exit(0)); process.stdin.resume();",
  ].join('\n');
  const t = new GroupStdioTransport({
    command: process.execPath,
    args: ['-e', script],
    graceMs: 300,
  });
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  t.onmessage = (m) => messages.push(m);
  t.onerror = (e) => errors.push(e);
  try {
    await t.start();
    await until('the one JSON-RPC message', () => messages.length === 1, { timeoutMs: 5000 });
    assert.equal((messages[0] as { method?: string }).method, 'notifications/message');
    assert.deepEqual(errors, []);
    assert.match(t.stderrTail().join('\n'), /ignored a stdout line that is not JSON-RPC/);
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  } finally {
    await t.close();
  }
  assert.equal(t.exit?.code, 0);
});

/** A `node -e` server: `body` runs once, then it waits for stdin to end. */
function scriptTransport(
  body: string,
  traffic?: TrafficGuard,
  more: Partial<GroupStdioTransportOptions> = {},
): GroupStdioTransport {
  const script = `${body}\nprocess.stdin.on('end', () => process.exit(0)); process.stdin.resume();`;
  return new GroupStdioTransport({
    command: process.execPath,
    args: ['-e', script],
    graceMs: 300,
    ...(traffic ? { traffic } : {}),
    ...more,
  });
}

const note = (n: number) =>
  `JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: ${n} } })`;

test(
  'a stream of garbage lines costs a counter each: a few are noted, the flood is named',
  T,
  async () => {
    const t = scriptTransport(
      `let out = ''; for (let i = 0; i < 1500; i += 1) out += 'garbage ' + i + '\\n';\n` +
        `process.stdout.write(out + ${note(1)} + '\\n');`,
    );
    const messages: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    t.onmessage = (m) => messages.push(m);
    t.onerror = (e) => errors.push(e);
    try {
      await t.start();
      await until('the message after them', () => messages.length === 1, { timeoutMs: 10_000 });
      assert.deepEqual(errors, []);
      const notes = t.stderrTail().filter((l) => l.includes('not JSON-RPC'));
      assert.equal(notes.length, DEFAULT_TRAFFIC_LIMITS.garbageNotesPerInterval);
      assert.equal(notes[0], '[mcpctl] ignored a stdout line that is not JSON-RPC: "garbage 0"');
      assert.deepEqual(t.traffic.report()?.kinds, ['garbage']);
      assert.match(
        t.traffic.report()?.note ?? '',
        /more than 100 stdout lines that are not JSON-RPC/,
      );
    } finally {
      await t.close();
    }
  },
);

test('output past the line budget is read later: nothing lost, nothing reordered', T, async () => {
  const traffic = new TrafficGuard({
    ...DEFAULT_TRAFFIC_LIMITS,
    linesPerSecond: 200,
    lineBurst: 10,
  });
  const t = scriptTransport(
    `for (let i = 0; i < 100; i += 1) process.stdout.write(${note(0).replace('data: 0', 'data: i')} + '\\n');`,
    traffic,
  );
  const data: unknown[] = [];
  t.onmessage = (m) => data.push((m as { params?: { data?: unknown } }).params?.data);
  try {
    await t.start();
    await until(
      'all 100 messages',
      () => {
        if (data.length !== 100) throw new Error(`got ${data.length}`);
        return true;
      },
      { timeoutMs: 10_000 },
    );
    assert.deepEqual(
      data,
      Array.from({ length: 100 }, (_, i) => i),
    );
    assert.deepEqual(traffic.report()?.kinds, ['output']);
  } finally {
    await t.close();
  }
});

test('notifications past the message budget are dropped; answers always pass', T, async () => {
  const traffic = new TrafficGuard({
    ...DEFAULT_TRAFFIC_LIMITS,
    messagesPerSecond: 0.001,
    messageBurst: 10,
  });
  const answer = `JSON.stringify({ jsonrpc: "2.0", id: 7, result: {} })`;
  const t = scriptTransport(
    `let out = ''; for (let i = 0; i < 100; i += 1) out += ${note(0)} + '\\n';\n` +
      `process.stdout.write(out + ${answer} + '\\n');`,
    traffic,
  );
  const messages: JSONRPCMessage[] = [];
  t.onmessage = (m) => messages.push(m);
  try {
    await t.start();
    await until('the answer', () => messages.some((m) => 'id' in m), { timeoutMs: 10_000 });
    assert.equal(messages.length, 11, 'the burst of notifications, then the answer');
    assert.deepEqual(traffic.report()?.kinds, ['messages']);
    assert.match(
      traffic.report()?.note ?? '',
      /^flooding \(just started\): notifications over 0.001\/s dropped$/,
    );
  } finally {
    await t.close();
  }
});

test('a server flooding stdout while reading is paused still closes promptly', T, async () => {
  const traffic = new TrafficGuard({ ...DEFAULT_TRAFFIC_LIMITS, linesPerSecond: 1, lineBurst: 1 });
  const t = scriptTransport(
    `const pump = () => { while (process.stdout.write(${note(0)} + '\\n')); process.stdout.once('drain', pump); }; pump();`,
    traffic,
  );
  await t.start();
  const pid = t.pid ?? -1;
  await until('it is paused', () => traffic.report() !== undefined, { timeoutMs: 5000 });
  await t.close();
  assert.equal(pidAlive(pid), false);
});

test('start fails for a missing command, and close is then a no-op', T, async () => {
  const t = new GroupStdioTransport({ command: '/nonexistent/mcp-server-xyz' });
  await assert.rejects(t.start(), { code: 'ENOENT' });
  assert.equal(t.spawnError?.message.includes('ENOENT'), true);
  await t.close();
  await assert.rejects(t.send({ jsonrpc: '2.0', method: 'x' }), /Not connected/);
});

test('onSpawn and onGone report the pid', T, async () => {
  const spawned: number[] = [];
  const gone: number[] = [];
  const t = new GroupStdioTransport({
    command: process.execPath,
    args: [STDIO_FIXTURE],
    graceMs: 300,
    onSpawn: (pid) => spawned.push(pid),
    onGone: (pid) => gone.push(pid),
  });
  try {
    await t.start();
    assert.deepEqual(spawned, [t.pid]);
    assert.deepEqual(gone, []);
  } finally {
    await t.close();
  }
  assert.deepEqual(gone, [t.pid]);
});

/** One byte past the 16 MiB message limit, as the text of a JSON string. */
const OVER_LIMIT = `'x'.repeat(16 * 1024 * 1024 + 1)`;

test(
  'a line over the message limit fails only the request it answers; the connection stays',
  { timeout: 60_000 },
  async () => {
    // Answers with the id first and last, a notification, then an answer of allowed size.
    const traffic = new TrafficGuard();
    const t = scriptTransport(
      [
        `const big = ${OVER_LIMIT};`,
        `process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{"text":"' + big + '"}}\\n');`,
        `process.stdout.write('{"jsonrpc":"2.0","result":{"text":"' + big + '"},"id":"mcpctl-2"}\\n');`,
        `process.stdout.write('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + big + '"}}\\n');`,
        `process.stdout.write('{"jsonrpc":"2.0","id":3,"result":{"text":"' + 'y'.repeat(12 * 1024 * 1024) + '"}}\\n');`,
      ].join('\n'),
      traffic,
      { name: 'big' },
    );
    const heard: string[] = [];
    traffic.onOversized((line) => heard.push(line.kind));
    const messages: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    let closed = false;
    t.onmessage = (m) => messages.push(m);
    t.onerror = (e) => errors.push(e);
    t.onclose = () => (closed = true);
    try {
      await t.start();
      await until('three answers, or the close', () => messages.length === 3 || closed, {
        timeoutMs: 40_000,
      });
      assert.deepEqual(errors, [], 'nothing is reported as a broken connection');
      assert.equal(closed, false, 'the connection stays');
      assert.equal(t.exit, undefined, 'the server runs on');
      const ids = messages.map((m) => ('id' in m ? m.id : undefined));
      assert.deepEqual(ids, [1, 'mcpctl-2', 3], 'each answer once, in order');
      for (const m of messages.slice(0, 2)) {
        const error = (m as { error?: { code: number; message: string } }).error;
        assert.equal(error?.code, -32005);
        assert.match(
          error?.message ?? '',
          /^answer of big exceeded the 16 MiB message limit \(16\.0 MiB\); mcpctl dropped it/,
        );
      }
      const text = (messages[2] as { result?: { text?: string } }).result?.text;
      assert.equal(text?.length, 12 * 1024 * 1024, 'the allowed answer arrives whole');
      assert.match(
        t.stderrTail().join('\n'),
        /dropped a stdout line of 16\.0 MiB, over the 16 MiB message limit: a notification "notifications\/message", dropped/,
      );
      assert.deepEqual(heard, ['answer', 'answer', 'notification'], 'each reported once');
      assert.equal(traffic.report(), undefined, 'three of them are no flood');
    } finally {
      await t.close();
    }
  },
);

test('a request over the limit from the server is answered with an error', T, async () => {
  // The server logs what it reads on stdin to stderr, so the tail shows our answer.
  const t = scriptTransport(
    [
      `process.stdin.on('data', (c) => process.stderr.write('got ' + c));`,
      `process.stdout.write('{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"x":"' + 'x'.repeat(2000) + '"}}\\n');`,
    ].join('\n'),
    undefined,
    { maxMessageBytes: 1000 },
  );
  const messages: JSONRPCMessage[] = [];
  t.onmessage = (m) => messages.push(m);
  try {
    await t.start();
    const answered = () => t.stderrTail().find((l) => l.startsWith('got '));
    await until('an answer', () => answered() !== undefined, { timeoutMs: 5000 });
    const error = JSON.parse(answered()?.slice(4) ?? '{}') as {
      id?: unknown;
      error?: { message?: string };
    };
    assert.equal(error.id, 's-1');
    assert.match(error.error?.message ?? '', /exceeded mcpctl's 1000 B message limit/);
    assert.deepEqual(messages, [], 'nothing of it reaches the client');
  } finally {
    await t.close();
  }
});

/** Servers that send more over the limit than the dropped-bytes budget allows. */
const OVERSIZED_FLOODS: ReadonlyArray<{ name: string; script: string }> = [
  {
    name: 'lines over the limit in a loop',
    script:
      `const line = '{"jsonrpc":"2.0","method":"n","params":{"x":"' + 'x'.repeat(2000) + '"}}\\n';\n` +
      `const pump = () => { while (process.stdout.write(line)); process.stdout.once('drain', pump); }; pump();`,
  },
  {
    name: 'one line that never ends',
    script:
      `process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{"text":"');\n` +
      `const pump = () => { while (process.stdout.write('x'.repeat(65536))); process.stdout.once('drain', pump); }; pump();`,
  },
];

for (const flood of OVERSIZED_FLOODS) {
  test(`a server sending ${flood.name} is read at the dropped-bytes budget`, T, async () => {
    const traffic = new TrafficGuard({
      ...DEFAULT_TRAFFIC_LIMITS,
      droppedBytesPerSecond: 100_000,
      droppedBytesBurst: 200_000,
    });
    const t = scriptTransport(flood.script, traffic, { maxMessageBytes: 1000 });
    let closed = false;
    t.onclose = () => (closed = true);
    try {
      await t.start();
      const pid = t.pid ?? -1;
      await until('it is paused', () => traffic.report() !== undefined, { timeoutMs: 5000 });
      assert.deepEqual(traffic.report()?.kinds, ['oversized']);
      assert.match(traffic.report()?.note ?? '', /messages over the size limit past 97\.7 KiB\/s/);
      assert.equal(closed, false, 'the connection stays');
      await t.close();
      assert.equal(pidAlive(pid), false, 'and closes promptly');
    } finally {
      await t.close();
    }
  });
}
