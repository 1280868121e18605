/**
 * Which command a command line names, read before anything is loaded: main.ts gives `serve`
 * its own small program (serve-bundle.js), every other command the full one.
 *
 * Guarantees: the command is the first word that is neither an option nor the value of a
 * global option that takes one (`--socket X`, `--workspace X`, `--session X`,
 * `--answer-timeout X`; `--socket=X` is one word); after `--` the next word. A word a command
 * takes later is never mistaken for it.
 */

/** The global options that take their value as the next word. */
export const VALUED_GLOBALS: ReadonlySet<string> = new Set([
  '--socket',
  '--workspace',
  '--session',
  '--answer-timeout',
]);

export function commandWordOf(words: readonly string[]): string | undefined {
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] ?? '';
    if (word === '--') return words[i + 1];
    if (!word.startsWith('-')) return word;
    if (VALUED_GLOBALS.has(word)) i += 1;
  }
  return undefined;
}
