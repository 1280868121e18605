/**
 * The daemon's log as a person reads it: one line per event, `15:04:05 INFO  message key=value`,
 * made from the JSON line pino writes (`mcpctl daemon --log-format text`, the default on a
 * terminal). Piped, or with `--log-format json`, the JSON lines are written as they are.
 *
 * Guarantees:
 * - One event, one line: every value is escaped (api/escape.ts `escapeField`: newlines, ANSI,
 *   bidi of a server's message cannot break or paint the line); colour only with `style`.
 * - A line that is not pino's JSON is written escaped as it is, never dropped.
 * - pino's own fields (time, level, pid, hostname, name, msg) are not repeated as key=value.
 */
import { escapeField } from '../../api/escape.js';
import type { Style } from './style.js';

export const LOG_FORMATS = ['auto', 'text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
const OWN_FIELDS = new Set(['time', 'level', 'pid', 'hostname', 'name', 'msg', 'v']);

function two(n: number): string {
  return String(n).padStart(2, '0');
}

function valueText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  // A value with a space is quoted so key=value pairs stay apart.
  return escapeField(/\s/.test(text) || text === '' ? JSON.stringify(text) : text);
}

/** One pino JSON line (without or with its newline) as one readable line with a newline. */
export function logLine(json: string, style: Style): string {
  let event: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error();
    event = parsed as Record<string, unknown>;
  } catch {
    return `${escapeField(json.replace(/\n$/, ''))}\n`;
  }
  const at = typeof event.time === 'number' ? new Date(event.time) : new Date();
  const time = `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
  const level = LEVELS[typeof event.level === 'number' ? event.level : 30] ?? 'INFO';
  const paint =
    level === 'WARN'
      ? style.yellow
      : level === 'ERROR' || level === 'FATAL'
        ? style.red
        : style.dim;
  const fields = Object.entries(event)
    .filter(([k, v]) => !OWN_FIELDS.has(k) && v !== undefined && v !== null)
    .map(([k, v]) => `${escapeField(k)}=${valueText(v)}`);
  const msg = typeof event.msg === 'string' ? escapeField(event.msg) : '';
  return `${style.dim(time)} ${paint(level.padEnd(5))} ${[msg, ...fields].filter((s) => s !== '').join(' ')}\n`;
}

/** `auto`: text on a terminal, JSON otherwise. */
export function resolveLogFormat(format: LogFormat, isTTY: boolean): 'text' | 'json' {
  if (format === 'auto') return isTTY ? 'text' : 'json';
  return format;
}
