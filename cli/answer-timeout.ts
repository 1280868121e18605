/**
 * How long a client waits for the daemon to answer at all (issue 22): a daemon that is stopped
 * (SIGSTOP), swapped out or wedged still has its connections accepted by the kernel, so
 * without a bound every command and `serve` would wait forever.
 *
 * Guarantees:
 * - `--answer-timeout DURATION`, else `$MCPCTL_ANSWER_TIMEOUT`, else 10 s; `0` waits forever.
 * - A value that is not a duration is a UsageError naming where it came from (exit 2).
 * - What is bounded is silence, not work: a request may take as long as it needs while the
 *   daemon answers anything (cli/rpc/client.ts probes it); only a daemon that answers nothing for
 *   this long is given up on.
 */
import { UsageError } from './errors.js';
import { parseDuration } from './output/age.js';

export const ANSWER_TIMEOUT_ENV = 'MCPCTL_ANSWER_TIMEOUT';
export const DEFAULT_ANSWER_TIMEOUT_MS = 10_000;
/** The longest wait a timer can hold (Node's setTimeout). */
const MAX_MS = 2 ** 31 - 1;

/** The bound in ms (0: none). @throws UsageError for a value that is not a duration. */
export function answerTimeoutMs(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): number {
  const fromEnv = env[ANSWER_TIMEOUT_ENV];
  const [text, where] =
    flag !== undefined
      ? [flag, '--answer-timeout']
      : fromEnv !== undefined && fromEnv.trim() !== ''
        ? [fromEnv, ANSWER_TIMEOUT_ENV]
        : [undefined, ''];
  if (text === undefined) return DEFAULT_ANSWER_TIMEOUT_MS;
  const ms = parseDuration(text);
  if (ms === undefined || ms > MAX_MS)
    throw new UsageError(
      `${where} must be a duration like 10s, 500ms or 2m (0 waits forever), got ${JSON.stringify(text)}`,
    );
  return ms;
}
