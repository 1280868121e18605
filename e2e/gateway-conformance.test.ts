/**
 * e2e conformance of the gateway (issue #14, DESIGN §5 "The gateway loses nothing"): ONE
 * scripted MCP client session — every item of MCP an agent uses — is run straight against
 * server-everything (stdio), then through the built `mcpctl serve` with the same server
 * configured as `everything` in the user settings of a temp HOME (a non-gated source), then
 * over the daemon's Streamable HTTP endpoint (`mcpctl daemon --http`, issue #26). Each
 * recording through mcpctl is compared with the straight one item by item, one test per item
 * and way, so a failure names the item and the way.
 *
 * The only differences allowed are the contract's:
 * - tool and prompt names carry the prefix `everything__` through mcpctl (mapped back before
 *   comparing; a listed name without the prefix stays visibly wrong);
 * - the gateway's `instructions` hold server-everything's under a heading naming `everything`;
 * - log messages come with `logger` `everything` or `everything/...`;
 * - a cancelled call's late progress is dropped by the gateway, while server-everything itself
 *   keeps sending it after a cancel (so "direct" sees some: that proves the check could fail).
 *
 * Randomness in server-everything, normalised narrowly:
 * - dynamic resources (`demo://resource/dynamic/...`, from templates, resource links, the
 *   resource prompt and get-resource-reference) embed `created at <local time>` in their text
 *   or base64 blob; only that suffix is replaced, only for those URIs;
 * - simulated logging picks a random level; we record whether the message's text is the one
 *   server-everything pairs with that level, not the level itself.
 * `get-env` is listed but not called: its answer is the server's environment, which differs by
 * design (the daemon starts it). Task-based tools (taskSupport "required") are listed, not called.
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult, Root } from '@modelcontextprotocol/sdk/types.js';
import { TestEnv, untilTools } from './harness.js';
import { until } from '../testing/until.js';
import {
  EVERYTHING_SERVER,
  REQUEST_TIMEOUT_MS,
  RecordingAgent,
  connectThroughServe,
  directTransport,
  listAll,
  textOf,
} from './gateway-agent.js';
import { httpTransport, startHttpDaemon } from './http-agent.js';
import { messageOf } from '../api/index.js';

const SERVER = 'everything';
const PREFIX = `${SERVER}__`;
/** One step of the script may take this long before it is recorded as failed. */
const STEP_MS = 45_000;
const R = { timeout: REQUEST_TIMEOUT_MS };

/** The items compared, in script order (each is one test below). */
const ITEMS = [
  'initialize: capabilities',
  'initialize: instructions',
  'tools/list',
  'tools/call: text',
  'tools/call: images and annotations',
  'tools/call: structuredContent',
  'tools/call: resource links',
  'tools/call: embedded resources',
  'tools/call: isError',
  'prompts/list',
  'prompts/get',
  'completion/complete: ref/prompt',
  'completion/complete: ref/resource',
  'resources/list',
  'resources/templates/list',
  'resources/read: listed resources',
  'resources/read: template URIs',
  'resources/read: resource links from a tool call',
  'resources/read: a resource a tool created',
  'resources/subscribe: notifications/resources/updated',
  'logging: setLevel and notifications/message',
  'progress: notifications with the caller token',
  'cancellation: abort, no late progress',
  'sampling: sampling/createMessage',
  'elicitation: elicitation/create',
  'roots: roots/list and list_changed',
  'no client errors',
] as const;
type Item = (typeof ITEMS)[number];

type Outcome =
  { ok: true; value: unknown; extra: Record<string, unknown> } | { ok: false; error: string };
type Recording = Map<Item, Outcome>;
interface Recorded {
  value: unknown;
  extra?: Record<string, unknown>;
}

/** The texts server-everything's simulated logging pairs with each level (server/logging.js). */
const SIMULATED_LOG: Record<string, string> = {
  debug: 'Debug-level message',
  info: 'Info-level message',
  notice: 'Notice-level message',
  warning: 'Warning-level message',
  error: 'Error-level message',
  critical: 'Critical-level message',
  alert: 'Alert level-message',
  emergency: 'Emergency-level message',
};
const isSimulated = (data: unknown) =>
  typeof data === 'string' && Object.values(SIMULATED_LOG).includes(data);

/** Replaces the local time server-everything writes into a dynamic resource (see top). */
const unstamp = (s: string) => s.replace(/ created at .*$/s, ' created at <time>');
function normalise(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalise);
  if (v === null || typeof v !== 'object') return v;
  const o: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) o[k] = normalise(x);
  if (typeof o.uri === 'string' && o.uri.startsWith('demo://resource/dynamic/')) {
    if (typeof o.text === 'string') o.text = unstamp(o.text);
    if (typeof o.blob === 'string')
      o.blob = Buffer.from(unstamp(Buffer.from(o.blob, 'base64').toString('utf8'))).toString(
        'base64',
      );
  }
  return o;
}

/**
 * A list as an object keyed by `key`, keys sorted: order is no part of the contract, and a
 * missing or extra item then shows as one key in the diff.
 */
function keyed<T>(items: readonly T[], key: (x: T) => string): Record<string, T> {
  const out: Record<string, T> = {};
  for (const item of [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)))
    out[key(item)] = item;
  return out;
}

/**
 * The waits below are not checks: the two recordings are compared item by item afterwards, so
 * a wait that runs out only lets the step record what came (`settle`).
 */
const settle = (wait: Promise<unknown>): Promise<unknown> => wait.catch(() => undefined);
const QUICK = { intervalMs: 50 };

function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** One side of the comparison: how it names server-everything's tools and prompts. */
interface Side {
  readonly agent: RecordingAgent;
  /** The name the client uses for a tool or prompt of server-everything. */
  name(bare: string): string;
  /** The bare name of a listed one; a name missing the prefix stays visibly wrong. */
  bare(listed: string): string;
}

/** The roots the client declares, the same on both sides, and the one it adds later. */
function rootsFor(env: TestEnv): { initial: Root[]; added: Root } {
  const ws = realpathSync(env.workspace);
  mkdirSync(path.join(ws, 'sub'), { recursive: true });
  return {
    initial: [{ uri: pathToFileURL(ws).href, name: 'conformance workspace' }],
    added: { uri: pathToFileURL(path.join(ws, 'sub')).href, name: 'conformance sub' },
  };
}

/**
 * The scripted session. `staticUris`: the resources to read (the direct side's list, so that
 * reading is checked even if listing fails).
 */
async function runScript(
  side: Side,
  roots: { initial: Root[]; added: Root },
  staticUris: readonly string[] | undefined,
): Promise<Recording> {
  const out: Recording = new Map();
  const { agent } = side;
  const c = agent.client;
  const call = (bare: string, args: Record<string, unknown> = {}) =>
    agent.callTool(side.name(bare), args);
  const step = async (item: Item, fn: () => Promise<Recorded>) => {
    try {
      const r = await withDeadline(fn(), STEP_MS, item);
      out.set(item, { ok: true, value: normalise(r.value), extra: r.extra ?? {} });
    } catch (err) {
      out.set(item, { ok: false, error: messageOf(err) });
    }
  };
  const scratch: { listed?: string[]; links?: string[] } = {};

  await step('initialize: capabilities', () => {
    const caps = c.getServerCapabilities() ?? {};
    return Promise.resolve({
      value: {
        tools: caps.tools !== undefined,
        prompts: caps.prompts !== undefined,
        resources: {
          subscribe: caps.resources?.subscribe === true,
          listChanged: caps.resources?.listChanged === true,
        },
        completions: caps.completions !== undefined,
        logging: caps.logging !== undefined,
      },
    });
  });
  await step('initialize: instructions', () =>
    Promise.resolve({ value: c.getInstructions() ?? '(no instructions)' }),
  );

  await step('tools/list', async () => {
    const tools = await listAll(async (cursor) => {
      const r = await c.listTools(cursor === undefined ? {} : { cursor }, R);
      return { items: r.tools, nextCursor: r.nextCursor };
    });
    return {
      value: keyed(
        tools.map((t) => ({ ...t, name: side.bare(t.name) })),
        (t) => t.name,
      ),
    };
  });
  await step('tools/call: text', async () => ({
    value: [
      await call('echo', { message: 'conformance ✓ "quoted" \n two lines' }),
      await call('get-sum', { a: 2, b: 40 }),
    ],
  }));
  await step('tools/call: images and annotations', async () => ({
    value: [
      await call('get-annotated-message', { messageType: 'error', includeImage: true }),
      await call('get-annotated-message', { messageType: 'debug', includeImage: false }),
      await call('get-tiny-image'),
    ],
  }));
  await step('tools/call: structuredContent', async () => ({
    value: [
      await call('get-structured-content', { location: 'Chicago' }),
      await call('get-structured-content', { location: 'Los Angeles' }),
    ],
  }));
  await step('tools/call: resource links', async () => {
    const r = await call('get-resource-links', { count: 4 });
    scratch.links = r.content.flatMap((x) => (x.type === 'resource_link' ? [x.uri] : []));
    return { value: r };
  });
  await step('tools/call: embedded resources', async () => ({
    value: [
      await call('get-resource-reference', { resourceType: 'Text', resourceId: 2 }),
      await call('get-resource-reference', { resourceType: 'Blob', resourceId: 3 }),
    ],
  }));
  await step('tools/call: isError', async () => ({
    value: [
      await call('get-resource-reference', { resourceType: 'Text', resourceId: -1 }),
      await call('echo', {}),
    ],
  }));

  await step('prompts/list', async () => {
    const prompts = await listAll(async (cursor) => {
      const r = await c.listPrompts(cursor === undefined ? {} : { cursor }, R);
      return { items: r.prompts, nextCursor: r.nextCursor };
    });
    return {
      value: keyed(
        prompts.map((p) => ({ ...p, name: side.bare(p.name) })),
        (p) => p.name,
      ),
    };
  });
  await step('prompts/get', async () => {
    const get = (bare: string, args: Record<string, string>) =>
      c.getPrompt({ name: side.name(bare), arguments: args }, R);
    return {
      value: [
        await get('simple-prompt', {}),
        await get('args-prompt', { city: 'Lisbon', state: 'Lisboa' }),
        await get('completable-prompt', { department: 'Sales', name: 'Eve' }),
        await get('resource-prompt', { resourceType: 'Text', resourceId: '3' }),
        await get('resource-prompt', { resourceType: 'Blob', resourceId: '4' }),
      ],
    };
  });
  await step('completion/complete: ref/prompt', async () => {
    const ref = { type: 'ref/prompt' as const, name: side.name('completable-prompt') };
    return {
      value: [
        await c.complete({ ref, argument: { name: 'department', value: 'Eng' } }, R),
        await c.complete(
          {
            ref,
            argument: { name: 'name', value: 'A' },
            context: { arguments: { department: 'Engineering' } },
          },
          R,
        ),
      ],
    };
  });
  await step('completion/complete: ref/resource', async () => ({
    value: [
      await c.complete(
        {
          ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
          argument: { name: 'resourceId', value: '12' },
        },
        R,
      ),
      await c.complete(
        {
          ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/blob/{resourceId}' },
          argument: { name: 'resourceId', value: 'x' },
        },
        R,
      ),
    ],
  }));

  await step('resources/list', async () => {
    const resources = await listAll(async (cursor) => {
      const r = await c.listResources(cursor === undefined ? {} : { cursor }, R);
      return { items: r.resources, nextCursor: r.nextCursor };
    });
    scratch.listed = resources.map((r) => r.uri);
    return { value: keyed(resources, (r) => r.uri) };
  });
  await step('resources/templates/list', async () => {
    const templates = await listAll(async (cursor) => {
      const r = await c.listResourceTemplates(cursor === undefined ? {} : { cursor }, R);
      return { items: r.resourceTemplates, nextCursor: r.nextCursor };
    });
    return { value: keyed(templates, (t) => t.uriTemplate) };
  });
  const uris = staticUris ?? scratch.listed ?? [];
  await step('resources/read: listed resources', async () => {
    assert.ok(uris.length > 0, 'server-everything lists resources');
    const reads = [];
    for (const uri of [...uris].sort()) reads.push(await c.readResource({ uri }, R));
    return { value: reads };
  });
  await step('resources/read: template URIs', async () => ({
    value: [
      await c.readResource({ uri: 'demo://resource/dynamic/text/7' }, R),
      await c.readResource({ uri: 'demo://resource/dynamic/blob/8' }, R),
    ],
  }));
  await step('resources/read: resource links from a tool call', async () => {
    const links = scratch.links ?? [];
    assert.ok(links.length > 0, 'the tool call returned resource links');
    const reads = [];
    for (const uri of links) reads.push(await c.readResource({ uri }, R));
    return { value: { links, reads } };
  });
  await step('resources/read: a resource a tool created', async () => {
    const data = `data:text/plain;base64,${Buffer.from('hello from the conformance test\n').toString('base64')}`;
    const link = await call('gzip-file-as-resource', {
      name: 'conformance.txt.gz',
      data,
      outputType: 'resourceLink',
    });
    const embedded = await call('gzip-file-as-resource', {
      name: 'conformance.txt.gz',
      data,
      outputType: 'resource',
    });
    const first = link.content[0];
    assert.ok(first?.type === 'resource_link', `a resource link: ${JSON.stringify(link)}`);
    // The server registers the resource as the tool runs and says resources/list_changed; a
    // gateway may learn of it a moment later, so the read is retried for a while.
    let read: unknown;
    await until(
      `reading ${first.uri}`,
      async () => {
        read = await c.readResource({ uri: first.uri }, R);
        return true;
      },
      { timeoutMs: 10_000 },
    );
    return { value: { link, embedded, read } };
  });

  await step('resources/subscribe: notifications/resources/updated', async () => {
    const uri = uris.find((u) => u.endsWith('/instructions.md')) ?? uris[0];
    assert.ok(uri, 'a resource to subscribe to');
    const subscribe = await c.subscribeResource({ uri }, R);
    const on = await call('toggle-subscriber-updates');
    await settle(
      until('the resource update', () => agent.updated.includes(uri), {
        ...QUICK,
        timeoutMs: 10_000,
      }),
    );
    const off = await call('toggle-subscriber-updates');
    const unsubscribe = await c.unsubscribeResource({ uri }, R);
    return {
      value: {
        subscribe,
        updated: [...new Set(agent.updated)],
        unsubscribe,
        toggled: [on.isError ?? false, off.isError ?? false],
      },
    };
  });
  await step('logging: setLevel and notifications/message', async () => {
    const setLevel = await c.setLoggingLevel('debug', R);
    const from = agent.logs.length;
    await call('toggle-simulated-logging');
    await settle(
      until(
        'a simulated log message',
        () => agent.logs.slice(from).some((l) => isSimulated(l.data)),
        {
          ...QUICK,
          timeoutMs: 10_000,
        },
      ),
    );
    await call('toggle-simulated-logging');
    const simulated = agent.logs.slice(from).find((l) => isSimulated(l.data));
    const ack = agent.logs.find(
      (l) => typeof l.data === 'string' && l.data.startsWith('Received Subscribe Resource request'),
    );
    return {
      value: {
        setLevel,
        simulated: simulated
          ? { levelMatchesText: SIMULATED_LOG[simulated.level] === simulated.data }
          : 'none arrived',
        subscribeAck: ack ? { level: ack.level, data: ack.data } : 'none arrived',
      },
      extra: {
        loggers: [simulated, ack].flatMap((l) => (l ? [l.logger] : [])),
        allLoggers: agent.logs.map((l) => l.logger),
      },
    };
  });

  await step('progress: notifications with the caller token', async () => {
    const op = (duration: number, steps: number, token: string | number) =>
      agent.callTool(
        side.name('trigger-long-running-operation'),
        { duration, steps },
        { progressToken: token },
      );
    const results = [await op(0.6, 3, 'conformance-progress'), await op(0.4, 2, 4242)];
    await settle(
      until(
        'the progress of both calls',
        () =>
          agent.progressOf('conformance-progress').length >= 3 &&
          agent.progressOf(4242).length >= 2,
        { ...QUICK, timeoutMs: 5000 },
      ),
    );
    return {
      value: {
        results,
        stringToken: agent.progressOf('conformance-progress'),
        numberToken: agent.progressOf(4242),
      },
      extra: {
        foreignTokens: agent.progress
          .map((p) => p.progressToken)
          .filter((t) => t !== 'conformance-progress' && t !== 4242),
      },
    };
  });
  await step('cancellation: abort, no late progress', async () => {
    const token = 'conformance-cancel';
    const errorsFrom = agent.errors.length;
    const abort = new AbortController();
    let settled = false;
    const pending = agent
      .callTool(
        side.name('trigger-long-running-operation'),
        { duration: 2.4, steps: 3 },
        { progressToken: token, signal: abort.signal },
      )
      .then(
        () => 'answered',
        (err: unknown) => `rejected: ${messageOf(err)}`,
      )
      .finally(() => (settled = true));
    await settle(
      until(
        'the call to end or report progress',
        () => settled || agent.progressOf(token).length > 0,
        {
          ...QUICK,
          timeoutMs: 10_000,
        },
      ),
    );
    // Whether progress came before the abort (not how much: under load the client may see a
    // second step before it aborts).
    const progressBeforeAbort = agent.progressOf(token).length > 0;
    abort.abort('the user pressed stop');
    const outcome = await pending;
    const abortedAt = agent.progress.length;
    // A barrier: this call starts after the abort and ends after the cancelled operation's
    // remaining steps would have been sent (same server, timers in order), so any late
    // progress has arrived by the time it answered.
    const barrier = await agent.callTool(
      side.name('trigger-long-running-operation'),
      { duration: 2.4, steps: 1 },
      { progressToken: 'conformance-barrier' },
    );
    await settle(
      until(
        "the barrier call's progress",
        () => agent.progressOf('conformance-barrier').length >= 1,
        {
          ...QUICK,
          timeoutMs: 5000,
        },
      ),
    );
    return {
      value: {
        progressBeforeAbort,
        outcome,
        barrier,
        barrierProgress: agent.progressOf('conformance-barrier'),
        clientErrors: agent.errors.slice(errorsFrom),
      },
      extra: {
        late: agent.progress.slice(abortedAt).filter((p) => p.progressToken === token).length,
      },
    };
  });

  await step('sampling: sampling/createMessage', async () => {
    const from = agent.samplingRequests.length;
    const result = await call('trigger-sampling-request', { prompt: 'Say hello', maxTokens: 32 });
    return { value: { requests: agent.samplingRequests.slice(from), result } };
  });
  await step('elicitation: elicitation/create', async () => {
    const from = agent.elicitationRequests.length;
    const result = await call('trigger-elicitation-request');
    return { value: { requests: agent.elicitationRequests.slice(from), result } };
  });
  await step('roots: roots/list and list_changed', async () => {
    /** Calls get-roots-list until its text satisfies `ok` (the server learns roots async). */
    const rootsText = async (ok: (text: string) => boolean) => {
      let last: CallToolResult | undefined;
      await settle(
        until(
          'get-roots-list to satisfy the check',
          async () => {
            last = await call('get-roots-list');
            return ok(textOf(last));
          },
          { timeoutMs: 15_000, intervalMs: 200 },
        ),
      );
      return last;
    };
    const first = roots.initial[0];
    assert.ok(first);
    const initial = await rootsText((t) => t.includes(`URI: ${first.uri}\n`));
    await agent.setRoots([...roots.initial, roots.added]);
    const changed = await rootsText((t) => t.includes(`URI: ${roots.added.uri}\n`));
    return { value: { initial, changed }, extra: { rootsRequests: agent.rootsRequests } };
  });
  await step('no client errors', () => Promise.resolve({ value: agent.errors }));
  return out;
}

/** Item checks beyond "equal to direct" (the contract's allowed differences, see top). */
const CHECKS: Partial<
  Record<Item, (direct: Outcome & { ok: true }, via: Outcome & { ok: true }) => void>
> = {
  'initialize: instructions': (d, v) => {
    const own = d.value as string;
    const joined = v.value as string;
    const at = joined.indexOf(own);
    assert.ok(
      at >= 0,
      `the gateway's instructions do not contain server-everything's own (${own.length} chars); they are: ${joined.slice(0, 300)}`,
    );
    const heading = joined.slice(0, at).trimEnd().split('\n').pop() ?? '';
    assert.match(
      heading,
      /\beverything\b/,
      'a heading naming the server precedes its instructions',
    );
  },
  'logging: setLevel and notifications/message': (d, v) => {
    assert.deepEqual(d.extra.loggers, [undefined, undefined], 'direct: no logger on these two');
    for (const logger of v.extra.allLoggers as unknown[])
      assert.ok(
        typeof logger === 'string' && (logger === SERVER || logger.startsWith(`${SERVER}/`)),
        `through mcpctl every log message names its server as logger, got ${JSON.stringify(logger)}`,
      );
  },
  'progress: notifications with the caller token': (_d, v) => {
    assert.deepEqual(v.extra.foreignTokens, [], 'no progress with a token the client never sent');
  },
  'cancellation: abort, no late progress': (d, v) => {
    assert.ok(
      (d.extra.late as number) > 0,
      'direct: server-everything keeps sending progress after a cancel (else this check is void)',
    );
    assert.equal(v.extra.late, 0, "through mcpctl a cancelled call's late progress is dropped");
  },
};

/** Lists recorded as objects keyed by name or URI: their keys are compared first. */
const KEYED_ITEMS: ReadonlySet<Item> = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
]);

/** Items compared by their CHECKS only, not by equality with direct. */
const COMPARED_BY_CHECK_ONLY: ReadonlySet<Item> = new Set(['initialize: instructions']);

describe(
  'gateway conformance: one client session straight and through mcpctl serve and over HTTP (e2e)',
  { timeout: 600_000 },
  () => {
    let env: TestEnv | undefined;
    const recordings: {
      direct?: Recording;
      via?: Recording;
      setupError?: string;
      http?: Recording;
      httpSetupError?: string;
    } = {};
    const agents: RecordingAgent[] = [];

    before(
      async () => {
        env = new TestEnv();
        const roots = rootsFor(env);
        const direct = new RecordingAgent({
          label: 'direct',
          answerAs: 'the agent',
          roots: roots.initial,
        });
        agents.push(direct);
        await direct.connect(directTransport(env));
        recordings.direct = await runScript(
          { agent: direct, name: (n) => n, bare: (n) => n },
          roots,
          undefined,
        );
        await direct.close();
        const listed = recordings.direct.get('resources/list');
        const staticUris = listed?.ok === true ? Object.keys(listed.value as object) : undefined;

        env.write(env.userSettingsPath, {
          mcpServers: { [SERVER]: { command: process.execPath, args: [EVERYTHING_SERVER] } },
        });
        const via = new RecordingAgent({
          label: 'through-mcpctl',
          answerAs: 'the agent',
          roots: roots.initial,
        });
        agents.push(via);
        try {
          await connectThroughServe(env, via);
          // Wait for the server to be there at all (tools/list works today), then run the script.
          await untilTools(
            via.client,
            `${PREFIX}echo to be listed`,
            (names) => names.includes(`${PREFIX}echo`),
            { timeoutMs: 30_000, request: R },
          );
          recordings.via = await runScript(
            {
              agent: via,
              name: (n) => `${PREFIX}${n}`,
              bare: (n) => (n.startsWith(PREFIX) ? n.slice(PREFIX.length) : `<not prefixed: ${n}>`),
            },
            roots,
            staticUris,
          );
        } catch (err) {
          recordings.setupError = `${messageOf(err)}; serve stderr: ${via.stderr()}`;
        }
        await via.close();

        // The third way: the same script over HTTP, to a daemon started with --http.
        await env.stopDaemon();
        const overHttp = new RecordingAgent({
          label: 'over-http',
          answerAs: 'the agent',
          roots: roots.initial,
        });
        agents.push(overHttp);
        try {
          const http = await startHttpDaemon(env);
          // The workspace in the URL: a session chosen by roots has no servers' instructions
          // in its initialize (http-roots.test.ts); this one is compared in full.
          await overHttp.connect(
            httpTransport(http, { query: { workspace: realpathSync(env.workspace) } }),
            () => http.daemon.stderr(),
          );
          await untilTools(
            overHttp.client,
            `${PREFIX}echo to be listed over HTTP`,
            (names) => names.includes(`${PREFIX}echo`),
            { timeoutMs: 30_000, request: R },
          );
        } catch (err) {
          recordings.httpSetupError = messageOf(err);
          return;
        }
        recordings.http = await runScript(
          {
            agent: overHttp,
            name: (n) => `${PREFIX}${n}`,
            bare: (n) => (n.startsWith(PREFIX) ? n.slice(PREFIX.length) : `<not prefixed: ${n}>`),
          },
          roots,
          staticUris,
        );
        await overHttp.close();
      },
      { timeout: 400_000 },
    );

    after(
      async () => {
        for (const a of agents) await a.close().catch(() => undefined);
        if (!env) return;
        await env.stopDaemon();
        await env.cleanup();
      },
      { timeout: 60_000 },
    );

    const ways = [
      {
        name: 'serve',
        suffix: '',
        recording: () => recordings.via,
        setup: () => recordings.setupError,
      },
      {
        name: 'HTTP',
        suffix: ' (over HTTP)',
        recording: () => recordings.http,
        setup: () => recordings.httpSetupError,
      },
    ] as const;
    for (const way of ways)
      for (const item of ITEMS)
        it(`${item}${way.suffix}`, { timeout: 10_000 }, () => {
          const through = `through mcpctl ${way.name}`;
          const d = recordings.direct?.get(item);
          assert.ok(d, `direct: ${item} was not recorded`);
          assert.ok(
            d.ok,
            `direct: ${item} failed, so the test itself is wrong: ${d.ok ? '' : d.error}`,
          );
          assert.ok(!way.setup(), `${through}: no session (${way.setup()})`);
          const v = way.recording()?.get(item);
          assert.ok(v, `${through}: ${item} was not recorded`);
          assert.ok(v.ok, `${through}: ${item} failed: ${v.ok ? '' : v.error}`);
          if (KEYED_ITEMS.has(item)) {
            const want = Object.keys(d.value as object);
            const got = Object.keys(v.value as object);
            assert.deepEqual(
              {
                missing: want.filter((k) => !got.includes(k)),
                extra: got.filter((k) => !want.includes(k)),
              },
              { missing: [], extra: [] },
              `${through}: ${item} does not list the same items as direct`,
            );
          }
          if (!COMPARED_BY_CHECK_ONLY.has(item))
            assert.deepEqual(v.value, d.value, `${through}: ${item} differs from direct`);
          CHECKS[item]?.(d, v);
        });
  },
);
