/**
 * Colours, only on a terminal (DESIGN §7 via issue 6): piped or redirected output, `NO_COLOR`
 * and `TERM=dumb` get plain text, so scripts and tests never see escape codes.
 */

export interface Style {
  readonly enabled: boolean;
  // Function-valued fields (not methods): they are passed around as cell painters.
  readonly green: (text: string) => string;
  readonly red: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
}

/** The SGR codes `sgr` below uses, and nothing else (escape.ts lets exactly these through). */
const CODES = [32, 31, 33, 39, 1, 22, 2] as const;

/** One of our own colour sequences, as a capture group (for String.split). */
export const OWN_SGR = new RegExp(`(\\u001b\\[(?:${CODES.join('|')})m)`);

export function styleFor(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>> = process.env,
): Style {
  const enabled = stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  const sgr = (open: (typeof CODES)[number], close: (typeof CODES)[number]) => (text: string) =>
    enabled && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    green: sgr(32, 39),
    red: sgr(31, 39),
    yellow: sgr(33, 39),
    bold: sgr(1, 22),
    dim: sgr(2, 22),
  };
}

/** No colour at all (for tests and non-terminal streams). */
export const plain: Style = styleFor({ isTTY: false });

/** Colours a condition status the way a reader scans it: True good, False bad, else pending. */
export function statusColour(style: Style, status: string | undefined): (text: string) => string {
  if (status === 'True') return style.green;
  if (status === 'False') return style.red;
  return style.yellow;
}
