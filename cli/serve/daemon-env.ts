/**
 * The environment of a daemon that `mcpctl serve` (or `mcpctl login`) starts, and how the
 * starter's own environment reaches the daemon's default session without becoming the
 * daemon's.
 *
 * Why: the daemon outlives its starter and serves every agent. Its process environment is what
 * sessions without one of their own use (those the CLI opens), so it must not be the first
 * agent's, with that agent's tokens in it (issue #22, M2).
 *
 * Guarantees:
 * - `daemonProcessEnv` keeps only what the daemon itself needs to run and find things: PATH,
 *   HOME, user and shell names, locale and time zone, temporary and XDG directories, the
 *   TLS and proxy settings of its own connections to remote servers, and `MCPCTL_*`. Nothing
 *   else of the starter's environment is in it.
 * - The starter's environment goes to the daemon once, on its stdin (`--env-from-stdin`), as
 *   one JSON document, and is the default session's environment (the starter's session): it
 *   never enters `process.env` of the daemon. Reading it is bounded in size and time, and a
 *   malformed document stops the daemon with a message saying so (never echoing values).
 */
import type { SessionEnvSpec } from '../../controller/daemon.js';

const KEPT_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  // The daemon's own HTTPS to remote servers and OAuth endpoints.
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_USE_ENV_PROXY',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
]);
const KEPT_PREFIXES = ['LC_', 'XDG_', 'MCPCTL_'];

/** The variables of `from` a daemon started by serve runs with (see the guarantees). */
export function daemonProcessEnv(from: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined) continue;
    if (KEPT_NAMES.has(name) || KEPT_PREFIXES.some((p) => name.startsWith(p))) out[name] = value;
  }
  return out;
}

/**
 * This process's environment as plain strings: what serve sends as the agent's (it inherited
 * it from the agent), both when it opens its session and when it starts a daemon, so the two
 * are equal and the session it opens is the daemon's default one.
 */
export function ownEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}

/** The document's shape, checked by hand: serve's start path does not load zod for this. */
function asStarterEnv(value: unknown): SessionEnvSpec | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { label, vars } = value as { label?: unknown; vars?: unknown };
  if (typeof label !== 'string' || label === '' || label.length > 200) return undefined;
  if (vars === null || typeof vars !== 'object' || Array.isArray(vars)) return undefined;
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(vars)) {
    if (typeof v !== 'string') return undefined;
    out[name] = v;
  }
  return { label, vars: out };
}

/** What the starter writes to the daemon's stdin. */
export function starterEnvDocument(env: SessionEnvSpec): string {
  return JSON.stringify({ label: env.label, vars: env.vars });
}

export const STARTER_ENV_MAX_BYTES = 4 * 1024 * 1024;
const STARTER_ENV_TIMEOUT_MS = 10_000;

export class StarterEnvError extends Error {
  override name = 'StarterEnvError';
}

/** Reads and checks the starter's document from `input` (the daemon's stdin) to its end. */
export function readStarterEnv(
  input: NodeJS.ReadableStream,
  timeoutMs: number = STARTER_ENV_TIMEOUT_MS,
): Promise<SessionEnvSpec> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (message: string) => {
      cleanup();
      reject(new StarterEnvError(`--env-from-stdin: ${message}`));
    };
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > STARTER_ENV_MAX_BYTES)
        return fail(`the environment on stdin is larger than ${STARTER_ENV_MAX_BYTES} bytes`);
      chunks.push(buf);
    };
    const onEnd = () => {
      cleanup();
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reject(new StarterEnvError('--env-from-stdin: stdin is not one JSON document'));
      }
      const checked = asStarterEnv(parsed);
      if (!checked)
        return reject(
          new StarterEnvError(
            '--env-from-stdin: expected {"label": text, "vars": {NAME: text}} on stdin',
          ),
        );
      resolve(checked);
    };
    const onError = (err: Error) => fail(`cannot read stdin: ${err.message}`);
    const timer = setTimeout(
      () => fail(`stdin did not end within ${timeoutMs / 1000} s`),
      timeoutMs,
    );
    function cleanup(): void {
      clearTimeout(timer);
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onError);
      // Nothing more is read from it; an ended or failed stdin must not hold the daemon.
      (input as { destroy?: () => void }).destroy?.();
    }
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onError);
  });
}
