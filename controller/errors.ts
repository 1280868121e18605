/** Errors a session raises to its callers (CLI, serve bridge); each says what to do. */
import type { WhyAnswer } from '../reconcilers/why.js';

export class UnknownServerError extends Error {
  constructor(
    readonly serverName: string,
    known: readonly string[],
  ) {
    const near = closest(serverName, known);
    super(
      `no server named ${serverName} in this session${near.length ? `; did you mean ${near.join(' or ')}?` : ''}`,
    );
    this.name = 'UnknownServerError';
  }
}

export class NotGatedError extends Error {
  override name = 'NotGatedError';
}

/** A call to a server whose tools are unavailable: carries the `why` answer and its fix. */
export class ServerUnavailableError extends Error {
  constructor(readonly why: Pick<WhyAnswer, 'name' | 'message' | 'action'> & { reason: string }) {
    super(`${why.message}: ${why.action}`);
    this.name = 'ServerUnavailableError';
  }
}

/** Names within a small edit distance, nearest first (for "did you mean"). */
export function closest(name: string, known: readonly string[]): string[] {
  return known
    .map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }))
    .filter(({ k, d }) => d <= Math.max(2, Math.floor(k.length / 3)))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map(({ k }) => k);
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}
