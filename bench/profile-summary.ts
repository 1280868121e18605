/**
 * Where the time of a V8 CPU profile (.cpuprofile, as --cpu-prof or the inspector writes)
 * went: self time per function and file, and total (inclusive) time of our own functions, so a
 * figure far from its goal points at the code to fix.
 *
 * Usage: node profile-summary.js file.cpuprofile [top=15]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime?: number;
  readonly endTime?: number;
}

/**
 * Several profiles as one, as if taken back to back (node ids renumbered), so that a few short
 * measured windows can be ranked together without the time between them.
 */
export function mergeProfiles(profiles: readonly CpuProfile[]): CpuProfile {
  const nodes: ProfileNode[] = [];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let offset = 0;
  for (const p of profiles) {
    const maxId = Math.max(0, ...p.nodes.map((n) => n.id));
    for (const n of p.nodes) {
      nodes.push({
        ...n,
        id: n.id + offset,
        ...(n.children ? { children: n.children.map((c) => c + offset) } : {}),
      });
    }
    samples.push(...p.samples.map((id) => id + offset));
    timeDeltas.push(...p.timeDeltas);
    offset += maxId;
  }
  const startTime = profiles[0]?.startTime ?? 0;
  return {
    nodes,
    samples,
    timeDeltas,
    startTime,
    endTime: startTime + timeDeltas.reduce((a, b) => a + b, 0),
  };
}

export interface HotSpot {
  readonly name: string;
  readonly ms: number;
  readonly share: number;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules\/)/, '$1');
  const short = file.replace(/^.*\/(dist|\.build-[^/]+)\//, '');
  return `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
}

/** Self and inclusive time per function label, largest first. */
export function summarize(profile: CpuProfile): {
  self: HotSpot[];
  inclusive: HotSpot[];
  totalMs: number;
} {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const stackOf = (leaf: number): ProfileNode[] => {
    const out: ProfileNode[] = [];
    for (let cur: number | undefined = leaf; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (n) out.push(n);
    }
    return out;
  };
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    // Starting and stopping the profiler is billed to the inspector's post(): not ours.
    if (stackOf(id).some((n) => n.callFrame.url === 'node:inspector')) continue;
    total += us;
    self.set(label(node), (self.get(label(node)) ?? 0) + us);
    // Count each label once per sample stack, so recursion is not double-billed.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (!n) break;
      const l = label(n);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + us);
    }
  }
  const rank = (m: Map<string, number>): HotSpot[] =>
    [...m.entries()]
      .map(([name, us]) => ({ name, ms: us / 1000, share: total === 0 ? 0 : us / total }))
      .sort((a, b) => b.ms - a.ms);
  return { self: rank(self), inclusive: rank(inclusive), totalMs: total / 1000 };
}

export function summarizeFile(file: string): ReturnType<typeof summarize> {
  return summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
}

const entry = process.argv[1] ?? '';
if (entry.endsWith('profile-summary.js')) {
  const [file, topText] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: profile-summary.js file.cpuprofile [top]\n');
    process.exit(2);
  }
  const top = Number(topText ?? 15);
  const s = summarizeFile(file);
  const line = (h: HotSpot) =>
    `${h.ms.toFixed(1).padStart(8)} ms ${(h.share * 100).toFixed(1).padStart(5)}%  ${h.name}`;
  process.stdout.write(`total ${s.totalMs.toFixed(1)} ms\n\nself time:\n`);
  for (const h of s.self.slice(0, top)) process.stdout.write(`${line(h)}\n`);
  process.stdout.write('\ninclusive time (our code and packages):\n');
  for (const h of s.inclusive.filter((x) => !x.name.startsWith('(')).slice(0, top))
    process.stdout.write(`${line(h)}\n`);
}
