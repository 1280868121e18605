/**
 * One request to a language server, bounded in time and cancellable by its asker: the
 * request/answer plumbing of a connection (connection.ts `request`).
 *
 * Guarantees:
 * - Past `timeoutMs` the request is cancelled (`$/cancelRequest`) and rejects with a `timeout`
 *   LspError naming the method.
 * - An abort of `signal` cancels it (`$/cancelRequest`) and rejects at once with a `cancelled`
 *   LspError; a signal already aborted sends nothing.
 * - An answer, and an error answer too (the server read everything sent before it), is told to
 *   `host.answered` with the document the request was about; every rejection is the host's
 *   `errorOf` of the cause (a timeout's and a cancel's are LspErrors already).
 * - The timer, the abort listener and the cancellation token are released when it settles.
 */
import {
  CancellationTokenSource,
  ResponseError,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { LspError } from './errors.js';

/** The open document a request is about, and its version when it was sent. */
export interface AboutDocument {
  readonly path: string;
  readonly version: number;
}

/** What a connection lends its requests: made once per connection, never per request. */
export interface RequestHost {
  /** `language server "NAME"`, as messages name it. */
  who(): string;
  /** The server answered about `about`'s version: it took that version in. */
  answered(about: AboutDocument | undefined): void;
  /** The LspError a failed request rejects with. */
  errorOf(method: string, err: unknown): LspError;
}

/** Sends `method` on `rpc`; bounded (see the guarantees). */
export function boundedRequest<R>(
  host: RequestHost,
  rpc: ProtocolConnection,
  method: string,
  params: object | null,
  about: AboutDocument | undefined,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<R> {
  const cancelled = () =>
    new LspError('cancelled', `${host.who()}: ${method} was cancelled by the asker`);
  if (signal?.aborted) return Promise.reject(cancelled());
  const source = new CancellationTokenSource();
  return new Promise<R>((resolve, reject) => {
    const timer = setTimeout(() => {
      source.cancel();
      reject(
        new LspError(
          'timeout',
          `${host.who()}: no answer to ${method} within ${timeoutMs} ms; it may still be busy (indexing): ask again`,
        ),
      );
    }, timeoutMs);
    const onAbort = (): void => {
      source.cancel();
      reject(cancelled());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    rpc
      .sendRequest<R>(method, params, source.token)
      .then(
        (result) => {
          host.answered(about);
          resolve(result);
        },
        (err: unknown) => {
          // An error answer is an answer too: the server read everything sent before it.
          if (err instanceof ResponseError) host.answered(about);
          reject(host.errorOf(method, err));
        },
      )
      .finally(() => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        source.dispose();
      });
  });
}
