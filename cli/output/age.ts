/**
 * Durations the way kubectl prints AGE and LAST SEEN (k8s.io/apimachinery HumanDuration):
 * 45s, 3m20s, 17m, 2h5m, 20h, 3d4h, 12d, 2y; `<unknown>` for a bad or missing time.
 */

export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

/** Age of an RFC 3339 timestamp at `now`. */
export function ageOf(timestamp: string | undefined, now: number): string {
  if (!timestamp) return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

/**
 * Parses a kubectl-style duration for `--timeout`: `30s`, `500ms`, `2m`, `1h30m`, or a bare
 * number of seconds. Returns ms, or undefined when it is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    total += Number(m[1]) * (unit[m[2] ?? ''] ?? 0);
    end = re.lastIndex;
  }
  return end === t.length && end > 0 ? Math.round(total) : undefined;
}
