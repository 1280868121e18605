/**
 * `approve NAME --session` as DESIGN §7 writes it: after `approve`, a bare `--session` (no
 * `=value`) means --for-session. The global `--session NAME` (which session to act on) is
 * given before the command; without this, the parser would take the word after it as a
 * session name. `valued` are the global options that take a value (their value is skipped
 * while looking for the command).
 */
export function approveSessionWord(argv: readonly string[], valued: ReadonlySet<string>): string[] {
  let i = 0;
  while (i < argv.length && argv[i]?.startsWith('-')) {
    const word = argv[i] ?? '';
    i += valued.has(word) ? 2 : 1;
  }
  if (argv[i] !== 'approve') return [...argv];
  return argv.map((word, at) => (at > i && word === '--session' ? '--for-session' : word));
}
