/**
 * Errors the approval store reports.
 *
 * Guarantees: every message names the approvals file, says what went wrong and what the store
 * did about it, so the daemon can show it as is (`describe`, events, logs) and a user knows
 * what to fix. `code` lets callers branch without parsing text.
 */

export type ApprovalStoreErrorCode =
  /** The file did not parse or had the wrong shape; `movedTo` says where it went, if anywhere. */
  | 'corrupt'
  /** Some entries are malformed: ignored and kept as they are (or kept aside when replaced). */
  | 'invalid-entries'
  /** The file exists but could not be read (permissions, a directory in its place, ...). */
  | 'unreadable'
  /** A decision could not be written; it is not saved. */
  | 'write-failed'
  /** Another process held the lock for too long; the decision is not saved. */
  | 'lock-failed'
  /** Our lock was taken over while we held it (a very long stall); a concurrent write may have raced. */
  | 'lock-compromised';

export class ApprovalStoreError extends Error {
  readonly code: ApprovalStoreErrorCode;
  /** The approvals file concerned. */
  readonly file: string;
  /** For `corrupt`: where the unreadable content was moved to, when that succeeded. */
  readonly movedTo?: string;

  constructor(
    code: ApprovalStoreErrorCode,
    file: string,
    message: string,
    options: { movedTo?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApprovalStoreError';
    this.code = code;
    this.file = file;
    if (options.movedTo !== undefined) this.movedTo = options.movedTo;
  }
}

/** A short, human description of an unknown thrown value. */
export function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
