/**
 * The load one proxy row is measured with: an SDK client calling one echo tool, a warm-up,
 * then sequential calls (each timed: the latency percentiles, and calls per second with one
 * in flight), then parallel calls (all sent at once: calls per second when the proxy may
 * overlap them).
 *
 * Guarantees: every answer is checked (it must echo the tool's own name and this call's
 * arguments), so a proxy that answers fast with an error or someone else's result fails the
 * bench instead of winning it; nothing here starts or ends a process.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { round } from '../stats.js';

export interface CallCounts {
  readonly warmup: number;
  readonly sequential: number;
  readonly parallel: number;
}

// 5000 warm-up calls, the same for every row: the figures compare steady states. Measured in
// windows of 500 calls (2026-12-01, this machine), direct's p50 settles after about 2000 calls
// (0.26 → 0.16 ms) and mcpctl's after about 3000 (0.70 → 0.32 ms): every process on the path
// (client, serve, daemon, server) is JIT-compiling its hot path until then, and a window at
// 1000 calls measured mostly that. What a short session sees is printed beside it (early).
export const DEFAULT_COUNTS: CallCounts = { warmup: 5000, sequential: 500, parallel: 500 };

/** The first calls of a connection, whose p50 is reported as what a short session sees. */
export const EARLY_CALLS = 500;

/**
 * `PROXY_CALLS=warmup,sequential,parallel` (e.g. `300,5000,5000` for steadier figures while
 * iterating); the defaults (the counts) otherwise, or for any entry that is not a
 * whole number ≥ 1.
 */
export function countsFrom(text: string | undefined): CallCounts {
  const [w, s, p] = (text ?? '').split(',').map((x) => Number(x.trim()));
  const ok = (n: number | undefined): n is number => Number.isSafeInteger(n) && (n ?? 0) >= 1;
  return {
    warmup: ok(w) ? w : DEFAULT_COUNTS.warmup,
    sequential: ok(s) ? s : DEFAULT_COUNTS.sequential,
    parallel: ok(p) ? p : DEFAULT_COUNTS.parallel,
  };
}

/** One row of results.json's `proxy` section (the shape). */
export interface ProxyRow {
  /** Of the sequential calls' round trips. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Sequential calls per second (one in flight at a time). */
  readonly seqPerS: number;
  /** Calls per second with every parallel call sent at once. */
  readonly parPerS: number;
}

/** Printed, and `early` in results.json. */
export interface LoadDetail {
  /**
   * p50 of the first EARLY_CALLS warm-up calls (fewer when the warm-up is shorter): fresh
   * processes with cold JIT, as in an agent session that makes a few calls.
   */
  readonly earlyP50Ms: number;
  readonly meanMs: number;
  readonly maxMs: number;
  /** From the first parallel call sent to the last answer. */
  readonly parallelWallMs: number;
}

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? NaN;
}

/** The echo's text: fast-server answers with JSON {tool, args, pid}. */
function check(result: unknown, tool: string, n: number): void {
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content;
  const text = content?.[0]?.text;
  let echoed: { tool?: unknown; args?: { n?: unknown } } | undefined;
  try {
    echoed = text === undefined ? undefined : (JSON.parse(text) as typeof echoed);
  } catch {
    echoed = undefined;
  }
  if (echoed?.tool !== tool || echoed.args?.n !== n)
    throw new Error(`call ${n} got a wrong answer: ${JSON.stringify(result).slice(0, 300)}`);
}

/** p50 of `count` sequential calls on a fresh `client`: its early figure alone. */
export async function earlyP50(
  client: Client,
  name: string,
  tool: string,
  count: number = EARLY_CALLS,
): Promise<number> {
  const latencies: number[] = [];
  for (let n = 0; n < count; n++) {
    const t = performance.now();
    check(await client.callTool({ name, arguments: { n } }), tool, n);
    latencies.push(performance.now() - t);
  }
  return round(
    percentile(
      [...latencies].sort((a, b) => a - b),
      50,
    ),
    3,
  );
}

/**
 * Runs the load on `client` calling `name` (the name the client sees) whose server-side name
 * is `tool`.
 */
export async function measureCalls(
  client: Client,
  name: string,
  tool: string,
  counts: CallCounts = DEFAULT_COUNTS,
): Promise<{ row: ProxyRow; detail: LoadDetail }> {
  let n = 0;
  const call = async (): Promise<void> => {
    const id = n++;
    check(await client.callTool({ name, arguments: { n: id } }), tool, id);
  };

  const early: number[] = [];
  for (let i = 0; i < counts.warmup; i++) {
    if (i >= EARLY_CALLS) {
      await call();
      continue;
    }
    const t = performance.now();
    await call();
    early.push(performance.now() - t);
  }

  const latencies: number[] = [];
  const seqStart = performance.now();
  for (let i = 0; i < counts.sequential; i++) {
    const t = performance.now();
    await call();
    latencies.push(performance.now() - t);
  }
  const seqMs = performance.now() - seqStart;

  const parStart = performance.now();
  await Promise.all(Array.from({ length: counts.parallel }, call));
  const parMs = performance.now() - parStart;

  const sorted = [...latencies].sort((a, b) => a - b);
  const mean = latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length);
  return {
    row: {
      p50Ms: round(percentile(sorted, 50), 3),
      p99Ms: round(percentile(sorted, 99), 3),
      seqPerS: Math.round((counts.sequential * 1000) / seqMs),
      parPerS: Math.round((counts.parallel * 1000) / parMs),
    },
    detail: {
      earlyP50Ms: round(
        percentile(
          [...early].sort((a, b) => a - b),
          50,
        ),
        3,
      ),
      meanMs: round(mean, 3),
      maxMs: round(sorted[sorted.length - 1] ?? NaN, 3),
      parallelWallMs: round(parMs, 1),
    },
  };
}
