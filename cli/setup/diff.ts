/**
 * The change setup makes to one file, as a unified diff (`diff -u` style), its secrets hidden.
 *
 * Guarantees:
 * - Lines common to both ends are found after the common prefix and suffix are set aside, so
 *   a small edit of a large file (`~/.claude.json`) costs little; past MAX_MIDDLE lines on a
 *   side the middle is shown as removed and added whole (still a correct diff).
 * - Every JSON string on a printed line whose value is a secret (env and header values, the
 *   token, a URL's secret parts) is printed as its `shown` form, whatever escapes the file
 *   wrote it with; any raw occurrence left (a secret inside a comment) is hidden too.
 * - A file that does not exist on one side is `/dev/null` there.
 */
import { createScanner, SyntaxKind } from 'jsonc-parser';
import type { Secret } from './entries.js';

const CONTEXT = 3;
const MAX_MIDDLE = 4000;

type Op = { readonly kind: ' ' | '-' | '+'; readonly line: string };

function linesOf(text: string | undefined): string[] {
  if (text === undefined || text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The edit script between `a` and `b` (longest common subsequence on the middle). */
function script(a: readonly string[], b: readonly string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = a.slice(0, start).map((line) => ({ kind: ' ', line }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length > MAX_MIDDLE || midB.length > MAX_MIDDLE) {
    ops.push(...midA.map((line): Op => ({ kind: '-', line })));
    ops.push(...midB.map((line): Op => ({ kind: '+', line })));
  } else {
    const n = midA.length;
    const m = midB.length;
    const table: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        table[i][j] =
          midA[i] === midB[j]
            ? table[i + 1][j + 1] + 1
            : Math.max(table[i + 1][j], table[i][j + 1]);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        ops.push({ kind: ' ', line: midA[i] });
        i++;
        j++;
      } else if (i < n && (j === m || table[i + 1][j] >= table[i][j + 1])) {
        // Removals before additions, as diff -u prints them.
        ops.push({ kind: '-', line: midA[i] });
        i++;
      } else {
        ops.push({ kind: '+', line: midB[j] });
        j++;
      }
    }
  }
  ops.push(...a.slice(endA).map((line): Op => ({ kind: ' ', line })));
  return ops;
}

/** `line` with its secrets hidden (see the module doc). */
export function hideSecrets(line: string, secrets: readonly Secret[]): string {
  if (secrets.length === 0) return line;
  const shown = new Map(secrets.map((s) => [s.value, s.shown]));
  const scanner = createScanner(line, false);
  let out = '';
  let at = 0;
  for (let kind = scanner.scan(); kind !== SyntaxKind.EOF; kind = scanner.scan()) {
    if (kind !== SyntaxKind.StringLiteral) continue;
    const instead = shown.get(scanner.getTokenValue());
    if (instead === undefined) continue;
    out += line.slice(at, scanner.getTokenOffset()) + JSON.stringify(instead);
    at = scanner.getTokenOffset() + scanner.getTokenLength();
  }
  out += line.slice(at);
  for (const s of secrets) if (s.value.length >= 4) out = out.split(s.value).join(s.shown);
  return out;
}

/** The unified diff of `file` from `before` to `after` (undefined: no file); '' when equal. */
export function unifiedDiff(
  file: string,
  before: string | undefined,
  after: string | undefined,
  secrets: readonly Secret[],
): string {
  if (before === after) return '';
  const ops = script(linesOf(before), linesOf(after));
  const out = [
    `--- ${before === undefined ? '/dev/null' : file}`,
    `+++ ${after === undefined ? '/dev/null' : file}`,
  ];
  let k = 0;
  while (k < ops.length) {
    if (ops[k].kind === ' ') {
      k++;
      continue;
    }
    // One hunk: from CONTEXT lines before this change to CONTEXT lines after the last change
    // that is no more than 2 * CONTEXT unchanged lines from the previous one.
    const first = Math.max(0, k - CONTEXT);
    let last = k;
    for (let j = k; j < ops.length; j++) {
      if (ops[j].kind !== ' ') last = j;
      else if (j - last > 2 * CONTEXT) break;
    }
    const end = Math.min(ops.length, last + CONTEXT + 1);
    let oldStart = 1;
    let newStart = 1;
    for (let j = 0; j < first; j++) {
      if (ops[j].kind !== '+') oldStart++;
      if (ops[j].kind !== '-') newStart++;
    }
    const hunk = ops.slice(first, end);
    const oldCount = hunk.filter((o) => o.kind !== '+').length;
    const newCount = hunk.filter((o) => o.kind !== '-').length;
    out.push(
      `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`,
    );
    for (const o of hunk) out.push(`${o.kind}${hideSecrets(o.line, secrets)}`);
    k = end;
  }
  return `${out.join('\n')}\n`;
}
