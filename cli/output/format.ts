/**
 * `-o table|wide|json|yaml|name` for lists and for watches.
 *
 * Guarantees: json and yaml print exactly the objects the daemon sent (DESIGN §6 shapes), a
 * List for a list and the bare object when exactly one name was asked for, like kubectl; table
 * output says `No <plural> found.` on stderr instead of printing an empty header. Human
 * formats escape control characters (escape.ts); json and yaml carry them in their own escapes.
 */
import type { WatchEventType } from '../objects.js';
import { escapeField } from '../../api/index.js';
import { json, yaml } from './escape.js';
import type { ObjectPrinter } from './printers.js';
import type { Style } from './style.js';
import { columnWidths, renderRow, renderTable, type CellInput } from './table.js';

/** How long a watch collects its first rows before printing them as one aligned table. */
const FIRST_BATCH_MS = 50;

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml', 'name'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface ListLike<T> {
  apiVersion: string;
  kind: string;
  items: T[];
}

export interface Printed {
  readonly stdout: string;
  readonly stderr: string;
}

export { json };

export function formatList<T>(
  list: ListLike<T>,
  printer: ObjectPrinter<T>,
  format: OutputFormat,
  opts: { now: number; style: Style; single?: boolean },
): Printed {
  const value = opts.single && list.items.length === 1 ? list.items[0] : list;
  switch (format) {
    case 'json':
      return { stdout: json(value), stderr: '' };
    case 'yaml':
      return { stdout: yaml(value), stderr: '' };
    case 'name':
      return {
        stdout: list.items.map((i) => `${escapeField(printer.name(i))}\n`).join(''),
        stderr: '',
      };
    case 'table':
    case 'wide': {
      if (list.items.length === 0) return { stdout: '', stderr: `No ${printer.plural} found.\n` };
      const wide = format === 'wide';
      const rows = list.items.map((i) => printer.row(i, opts.now, wide, opts.style));
      return { stdout: renderTable(printer.headers(wide), rows), stderr: '' };
    }
  }
}

/**
 * Prints a watch stream. Tables: the header once, then a row per change; the initial state is
 * aligned as one table, and later columns never shrink.
 */
export class WatchPrinter<T> {
  readonly #printer: ObjectPrinter<T>;
  readonly #format: OutputFormat;
  readonly #write: (text: string) => void;
  readonly #style: Style;
  readonly #now: () => number;
  #pending: Array<{ type: WatchEventType; object: T }> = [];
  #scheduled = false;
  #widths: number[] | undefined;

  constructor(opts: {
    printer: ObjectPrinter<T>;
    format: OutputFormat;
    write: (text: string) => void;
    style: Style;
    now?: () => number;
  }) {
    this.#printer = opts.printer;
    this.#format = opts.format;
    this.#write = opts.write;
    this.#style = opts.style;
    this.#now = opts.now ?? Date.now;
  }

  push(type: WatchEventType, object: T): void {
    this.#pending.push({ type, object });
    if (this.#scheduled) return;
    this.#scheduled = true;
    if (this.#widths === undefined && this.#format !== 'json' && this.#format !== 'yaml') {
      // The initial state may arrive in several chunks: collect it briefly so it is aligned as
      // one table. Later changes print at once.
      setTimeout(() => this.flush(), FIRST_BATCH_MS);
    } else setImmediate(() => this.flush());
  }

  flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    switch (this.#format) {
      case 'json':
        for (const { object } of batch) this.#write(json(object));
        return;
      case 'yaml':
        for (const { object } of batch) this.#write(`---\n${yaml(object)}`);
        return;
      case 'name':
        for (const { object } of batch) this.#write(`${escapeField(this.#printer.name(object))}\n`);
        return;
      case 'table':
      case 'wide': {
        const wide = this.#format === 'wide';
        const headers = this.#printer.headers(wide);
        const rows: CellInput[][] = batch.map(({ object }) =>
          this.#printer.row(object, this.#now(), wide, this.#style),
        );
        const fresh = columnWidths(headers, rows);
        const first = this.#widths === undefined;
        this.#widths = (this.#widths ?? fresh).map((w, i) => Math.max(w, fresh[i] ?? 0));
        if (first) this.#write(`${renderRow(headers, this.#widths)}\n`);
        for (const row of rows) this.#write(`${renderRow(row, this.#widths)}\n`);
        return;
      }
    }
  }
}
