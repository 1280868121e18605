/**
 * The errors a language server connection (connection.ts) rejects with when it fails to start
 * or a request fails: each an LspError that names the server and says what happened.
 *
 * Guarantees:
 * - A start failure names the server, the phase and the cause (an LspError's own message, a
 *   refused initialize with the server's code, any other failure) and ends with the server's
 *   last stderr lines (errors.ts `withStderr`); it is a `server` error unless the cause was an
 *   LspError of another kind (a timeout stays a timeout).
 * - A request failure is the LspError it already was (timeout, cancel); else `server` when the
 *   connection is no longer ready (it went away before answering), `response` with the
 *   server's code and message for an error answer, `server` otherwise.
 */
import { ResponseError } from 'vscode-languageserver-protocol/node';
import type { LspConnectionState } from './connection-options.js';
import { LspError, messageOf, withStderr } from './errors.js';

/** Why `open()` failed in `phase`, with the server's last stderr lines. */
export function startError(
  who: string,
  err: unknown,
  phase: string,
  stderr: readonly string[],
): LspError {
  const stderrTail = [...stderr];
  if (err instanceof LspError)
    return new LspError(err.kind, withStderr(err.message, stderr), { stderrTail });
  if (err instanceof ResponseError)
    return new LspError(
      'server',
      withStderr(`${who}: refused ${phase}: ${err.message} (code ${err.code})`, stderr),
      { stderrTail },
    );
  const message = messageOf(err);
  return new LspError(
    'server',
    withStderr(
      message.startsWith('language server') ? message : `${who}: ${phase} failed: ${message}`,
      stderr,
    ),
    { stderrTail },
  );
}

/** Why a request of `method` failed, the connection being in `state` now. */
export function requestError(
  who: string,
  state: LspConnectionState,
  method: string,
  err: unknown,
): LspError {
  if (err instanceof LspError) return err;
  if (state !== 'ready')
    return new LspError('server', `${who} went away before it answered ${method} (${state})`);
  if (err instanceof ResponseError)
    return new LspError('response', `${who} answered ${method} with an error: ${err.message}`, {
      code: err.code,
    });
  return new LspError('server', `${who}: ${method} failed: ${messageOf(err)}`);
}
