/**
 * Commands we suggest to the user (`why`, approval prompts) must run as shown when pasted into
 * a POSIX shell, whatever the server's name holds.
 *
 * Guarantees:
 * - `shellQuote` returns a plain word unchanged and single-quotes anything else (a `'` inside
 *   becomes `'\''`), so the shell passes it as exactly one argument and expands nothing.
 * - `commandHint` renders a suggested command in the prose's usual single quotes
 *   (`'mcpctl approve fs'`) when no argument needed quoting; otherwise the quoted command alone,
 *   since quotes in quotes would not paste correctly.
 */

const PLAIN_WORD = /^[A-Za-z0-9_./:=@%+,-]+$/;

export function shellQuote(arg: string): string {
  return PLAIN_WORD.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function commandHint(args: readonly string[]): string {
  const words = args.map(shellQuote);
  const plain = words.every((w, i) => w === args[i]);
  return plain ? `'${words.join(' ')}'` : words.join(' ');
}
