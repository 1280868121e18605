/**
 * The in-band OAuth login offer (login-prompt.ts) between an SDK Server and Client in one
 * process, with a fake session port and fake logins: who is asked, what ends an attempt, and
 * when the client hears that the elicitation completed.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { until } from '../testing/until.js';
import { promptLogins, type LoginPrompts, type StartLogin } from './login-prompt.js';
import type { WhyText } from './session-port.js';

const T = { timeout: 20_000 };

/** The parts of a session the prompt uses, driven by the test. */
class FakePort {
  readonly reasons = new Map<string, string>();
  readonly #loginListeners: ((server: string) => void)[] = [];
  readonly #listListeners: (() => void)[] = [];

  loginsRequired = (): Promise<string[]> =>
    Promise.resolve([...this.reasons].filter(([, r]) => r === 'Unauthorized').map(([n]) => n));
  onLoginRequired = (listener: (server: string) => void): void => {
    this.#loginListeners.push(listener);
  };
  onListChanged = (listener: () => void): void => {
    this.#listListeners.push(listener);
  };
  why = (server: string): Promise<WhyText> =>
    Promise.resolve({ reason: this.reasons.get(server) ?? 'Unknown', message: '', action: '' });

  /** The session says `server` waits for a login. */
  waits(server: string): void {
    this.reasons.set(server, 'Unauthorized');
    for (const l of this.#loginListeners) l(server);
  }

  /** `server` became Ready some other way. */
  ready(server: string): void {
    this.reasons.set(server, 'Available');
    for (const l of this.#listListeners) l();
  }
}

interface FakeAttempt {
  readonly server: string;
  cancelled: boolean;
  succeed(): void;
  fail(message: string): void;
}

function fakeLogins(): { login: StartLogin; attempts: FakeAttempt[] } {
  const attempts: FakeAttempt[] = [];
  const login: StartLogin = (server) => {
    let resolve: (why: WhyText) => void = () => undefined;
    let reject: (err: Error) => void = () => undefined;
    const done = new Promise<WhyText>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    done.catch(() => undefined);
    const attempt: FakeAttempt = {
      server,
      cancelled: false,
      succeed: () => resolve({ reason: 'Available', message: '', action: 'none' }),
      fail: (message) => reject(new Error(message)),
    };
    attempts.push(attempt);
    return Promise.resolve({
      url: `https://auth.example/authorize?state=s-${server}`,
      done,
      cancel() {
        attempt.cancelled = true;
        reject(new Error('cancelled'));
      },
    });
  };
  return { login, attempts };
}

interface Asked {
  readonly params: ElicitRequest['params'];
  readonly signal: AbortSignal;
}

interface Rig {
  readonly port: FakePort;
  readonly attempts: FakeAttempt[];
  readonly asked: Asked[];
  readonly completed: string[];
  readonly logs: string[];
  readonly prompts: LoginPrompts;
  close(): Promise<void>;
}

async function rig(
  capabilities: ClientCapabilities,
  answer: (a: Asked) => ElicitResult | Promise<ElicitResult>,
  waiting: string[] = [],
): Promise<Rig> {
  const port = new FakePort();
  for (const name of waiting) port.reasons.set(name, 'Unauthorized');
  const { login, attempts } = fakeLogins();
  const server = new Server({ name: 'gw', version: '0.0.0' }, { capabilities: {} });
  const logs: string[] = [];
  const prompts = promptLogins(server, port, {
    login,
    timeoutMs: 10_000,
    log: (m) => logs.push(m),
  });
  server.oninitialized = () => prompts.initialized();
  const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities });
  const asked: Asked[] = [];
  const completed: string[] = [];
  if (capabilities.elicitation)
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      const a = { params: request.params, signal: extra.signal };
      asked.push(a);
      return answer(a);
    });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    completed.push(n.params.elicitationId);
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  // The SDK's client ignores a cancellation of request id 0 (`if (!requestId) return`): the
  // server's first request is a ping, so a withdrawn question is never that one.
  await server.ping();
  return {
    port,
    attempts,
    asked,
    completed,
    logs,
    prompts,
    async close() {
      prompts.close();
      await client.close();
      await server.close();
    },
  };
}

const URL_MODE: ClientCapabilities = { elicitation: { url: {} } };
const accept = (): ElicitResult => ({ action: 'accept' });
const idOf = (a: Asked): string => (a.params.mode === 'url' ? a.params.elicitationId : '');
/** Lets queued messages and promise callbacks run. */
const flush = () => new Promise<void>((r) => setTimeout(r, 50));

describe('login prompt (URL-mode elicitation)', () => {
  let current: Rig | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });

  it('a client without URL mode is never asked and no login starts', T, async () => {
    const r = (current = await rig({ elicitation: { form: {} } }, accept, ['a']));
    r.port.waits('b');
    await flush();
    assert.equal(r.attempts.length, 0);
    assert.equal(r.asked.length, 0);
  });

  it(
    'servers waiting at initialize are asked; one question per server at once; accept + redirect → complete once',
    T,
    async () => {
      const r = (current = await rig(URL_MODE, accept, ['a']));
      await until('asked about a', () => r.asked.length === 1);
      const asked = r.asked[0].params;
      assert.equal(asked.mode, 'url');
      assert.ok(asked.mode === 'url' && asked.url === 'https://auth.example/authorize?state=s-a');
      r.port.waits('a'); // announced again while the question is open
      await flush();
      assert.equal(r.attempts.length, 1, 'no second login for the same server');
      assert.deepEqual(r.completed, [], 'accept alone completes nothing');

      r.attempts[0].succeed();
      await until('complete', () => r.completed.length === 1);
      assert.equal(r.completed[0], idOf(r.asked[0]));
      // The login made it Ready: the list change does not complete it a second time.
      r.port.ready('a');
      await flush();
      assert.deepEqual(r.completed, [idOf(r.asked[0])]);

      // A new stretch of waiting: asked again, with a new elicitation id.
      r.port.waits('a');
      await until('asked again', () => r.asked.length === 2);
      assert.notEqual(idOf(r.asked[1]), idOf(r.asked[0]));
    },
  );

  it('decline or cancel cancels the attempt and completes nothing', T, async () => {
    const answers: ElicitResult[] = [{ action: 'decline' }, { action: 'cancel' }];
    const r = (current = await rig(URL_MODE, () => answers.shift() ?? accept()));
    r.port.waits('a');
    r.port.waits('b');
    await until(
      'both attempts cancelled',
      () => r.attempts.length === 2 && r.attempts.every((a) => a.cancelled),
    );
    await flush();
    assert.deepEqual(r.completed, []);
  });

  it('an attempt that fails while the question is open withdraws the question', T, async () => {
    const r = (current = await rig(
      URL_MODE,
      // The user never answers: the question stays until withdrawn.
      (a) =>
        new Promise<ElicitResult>((resolve) =>
          a.signal.addEventListener('abort', () => resolve({ action: 'cancel' })),
        ),
    ));
    r.port.waits('a');
    await until('asked', () => r.asked.length === 1);
    r.attempts[0].fail('the redirect carried a wrong state');
    await until('withdrawn', () => r.asked[0].signal.aborted);
    await until('reported', () => r.logs.some((l) => /wrong state/.test(l)));
    assert.deepEqual(r.completed, []);
  });

  it(
    'signed in elsewhere: an accepted question completes, an open one is withdrawn; attempts are cancelled',
    T,
    async () => {
      let answered = 0;
      const r = (current = await rig(URL_MODE, (a) => {
        answered += 1;
        // a: accepted at once; b: never answered.
        return answered === 1
          ? accept()
          : new Promise<ElicitResult>((resolve) =>
              a.signal.addEventListener('abort', () => resolve({ action: 'cancel' })),
            );
      }));
      r.port.waits('a');
      await until('a asked', () => r.asked.length === 1);
      r.port.waits('b');
      await until('b asked', () => r.asked.length === 2);
      await flush();
      r.port.ready('a');
      r.port.ready('b');
      await until('a completed', () => r.completed.length === 1);
      assert.equal(r.completed[0], idOf(r.asked[0]));
      await until('b withdrawn', () => r.asked[1].signal.aborted);
      assert.ok(r.attempts.every((a) => a.cancelled));
    },
  );

  it('close() cancels every attempt and asks nothing more', T, async () => {
    const r = (current = await rig(URL_MODE, accept));
    r.port.waits('a');
    await until('asked', () => r.asked.length === 1);
    r.prompts.close();
    assert.ok(r.attempts[0].cancelled);
    r.port.waits('b');
    await flush();
    assert.equal(r.attempts.length, 1);
    assert.deepEqual(r.completed, []);
  });
});
