/**
 * The texts one answer's positions are converted with and its lines quoted from (requests.ts).
 * A server's locations name any file it likes, and a benign server follows whatever links the
 * repository holds: these are the only files an answer reads.
 *
 * Guarantees:
 * - A file is read only when its realpath is inside the workspace (`root`): a location outside
 *   it, or through a link (of the file or of a folder on its way) to a file outside it, gets no
 *   text, and its positions are the server's numbers, 1-based.
 * - A document the server has open is taken as the server has it (documents.ts); any other file
 *   is read at its real path, only when it is a regular file, opened non-blocking, at most the
 *   documents' size limit (real-file.ts; unless the connection's recent-files.ts proves it
 *   unchanged since it last read it): a FIFO, a device (`/dev/zero`) or a 2 GB log is never
 *   waited for nor read, and gets no text.
 * - One answer reads at most MAX_QUOTED_BYTES of files (answer-limits.ts), one file at a time;
 *   the files past it get no text. A file is read at most once per answer.
 */
import { MAX_QUOTED_BYTES } from './answer-limits.js';
import type { LspConnection } from './connection.js';
import { fromLspPosition, TextLines, type LspRange } from './positions.js';
import { pathOf, realPathInside } from './workspace-files.js';

export class AnswerTexts {
  readonly #conn: LspConnection;
  readonly #root: string;
  readonly #cache = new Map<string, Promise<TextLines | undefined>>();
  /** Bytes this answer may still read. */
  #budget = MAX_QUOTED_BYTES;
  /** The last read: reads run one at a time, so the budget is never overdrawn. */
  #reading: Promise<unknown> = Promise.resolve();

  /** `root`: the agent's workspace (a realpath), the only place files are read from. */
  constructor(conn: LspConnection, root: string) {
    this.#conn = conn;
    this.#root = root;
  }

  /** The text of `uri`'s file, or undefined when it must not or cannot be read. */
  lines(uri: string): Promise<TextLines | undefined> {
    let lines = this.#cache.get(uri);
    if (!lines) {
      lines = this.#reading.then(() => this.#read(uri)).catch(() => undefined);
      this.#reading = lines;
      this.#cache.set(uri, lines);
    }
    return lines;
  }

  /**
   * Where `name` first appears in `range` (a symbol's whole declaration, as servers give it):
   * the spot to ask the next question about. The range's start when it does not appear.
   */
  async nameIn(
    uri: string,
    range: LspRange,
    name: string,
  ): Promise<{ line: number; column: number }> {
    const lines = await this.lines(uri);
    if (!lines) return { line: range.start.line + 1, column: range.start.character + 1 };
    const start = fromLspPosition(lines, range.start, this.#conn.encoding);
    const end = fromLspPosition(lines, range.end, this.#conn.encoding);
    for (let line = start.line; line <= end.line; line += 1) {
      const chars = [...lines.line(line - 1)];
      const from = line === start.line ? start.column - 1 : 0;
      const to = line === end.line ? end.column - 1 : chars.length;
      const found = chars.slice(from, to).join('').indexOf(name);
      if (found >= 0) {
        const before = chars.slice(from).join('').slice(0, found);
        return { line, column: from + [...before].length + 1 };
      }
    }
    return start;
  }

  async #read(uri: string): Promise<TextLines | undefined> {
    const file = pathOf(uri);
    if (file === undefined) return undefined;
    const real = await realPathInside(this.#root, file);
    if (real === undefined) return undefined;
    // Documents are kept by realpath (requests resolve the agent's file first).
    const open = this.#conn.documents.get(real);
    if (open) return new TextLines(open.text);
    const maxBytes = Math.min(this.#conn.documents.maxFileBytes, this.#budget);
    const read = await this.#conn.recentFiles.read(real, maxBytes);
    if (read.kind !== 'ok') return undefined;
    // The size at the open, or more when the file grew while read (never over maxBytes).
    this.#budget -= Math.max(Number(read.stamp.stats.size), read.text.length);
    return new TextLines(read.text);
  }
}
