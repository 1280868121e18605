/**
 * The CLI's `--session NAME`: a session id as `get sessions` prints it, or a unique prefix of
 * one, and the sessions of one folder (the stderr line a command prints when its folder has
 * more than one).
 *
 * Guarantees:
 * - An exact id wins, even when it is also a prefix of another id.
 * - A prefix that names exactly one session picks it; one that names several or none picks
 *   nothing, and the sentence says which sessions there are (all of them, or the prefix's
 *   candidates) and what to pass instead. Names are not secrets (ids are made from folder
 *   names); the printers escape them.
 */

export type SessionPick = { readonly id: string } | { readonly error: string };

export function pickSession(name: string, ids: readonly string[]): SessionPick {
  if (ids.includes(name)) return { id: name };
  const matches = ids.filter((id) => id.startsWith(name));
  if (matches.length === 1 && matches[0] !== undefined) return { id: matches[0] };
  if (matches.length > 1)
    return {
      error: `--session ${name} names ${matches.length} sessions (${matches.join(', ')}); pass more of the name`,
    };
  return {
    error: `no session named ${name}; the sessions there are: ${ids.length === 0 ? '(none)' : ids.join(', ')} (see mcpctl get sessions)`,
  };
}

/**
 * The line a command says on stderr when the folder it acts on has several sessions (different
 * agents' environments, or flags): how many, which one it shows, how to choose. Empty for one.
 */
export function severalSessionsLine(
  shown: string,
  folderSessions: readonly string[],
  difference = '',
): string {
  if (folderSessions.length < 2) return '';
  const why = difference === '' ? '' : `; ${difference}`;
  return `this folder has ${folderSessions.length} sessions (${folderSessions.join(', ')})${why}; showing ${shown}: choose one with --session NAME, or all with -A\n`;
}
