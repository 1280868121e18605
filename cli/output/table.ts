/**
 * kubectl-style tables: upper-case headers, columns left-aligned and separated by three
 * spaces, no borders, the last column unpadded, one line per row. Widths come from the plain text, so colour
 * codes never misalign a column. Every cell is escaped (escape.ts `escapeField`).
 */
import { escapeField } from '../../api/index.js';

export interface Cell {
  readonly text: string;
  /** Applied after padding, so escape codes do not count toward the width. */
  readonly paint?: (text: string) => string;
}

export type CellInput = string | Cell;

const GAP = '   ';

/**
 * One line per row: a multi-line value (a message quoting stderr) is folded onto one line, and
 * every other control character is made visible (escape.ts): no cell can move the cursor.
 */
function cellOf(input: CellInput): Cell {
  const cell = typeof input === 'string' ? { text: input } : input;
  return { ...cell, text: escapeField(cell.text.replace(/\s*\n\s*/g, ' ')) };
}

/** Column widths that fit the headers and every row. */
export function columnWidths(
  headers: readonly string[],
  rows: readonly (readonly CellInput[])[],
): number[] {
  return headers.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => cellOf(r[i] ?? '').text.length)),
  );
}

export function renderRow(cells: readonly CellInput[], widths: readonly number[]): string {
  return cells
    .map((input, i) => {
      const cell = cellOf(input);
      const last = i === cells.length - 1;
      const padded = last ? cell.text : cell.text.padEnd(widths[i] ?? 0);
      if (!cell.paint) return padded;
      // Paint the text only; the padding stays plain.
      return cell.paint(cell.text) + padded.slice(cell.text.length);
    })
    .join(GAP)
    .trimEnd();
}

export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly CellInput[])[],
): string {
  const widths = columnWidths(headers, rows);
  return [renderRow(headers, widths), ...rows.map((r) => renderRow(r, widths))].join('\n') + '\n';
}
