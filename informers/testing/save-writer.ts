/**
 * Saves a file the way editors and tools do, with exact gaps, in a process of its own: the
 * test's event loop (and the watcher in it) keeps running while this one sleeps precisely.
 *
 * Run: `node save-writer.js '<json steps>'`; prints the time (ms since start) each step began,
 * one JSON array on stdout. Steps:
 *   { "write": FILE, "text": T }              writeFileSync (truncate + write in place)
 *   { "append": FILE, "text": T }             one more chunk at the end
 *   { "truncate": FILE }                      to zero bytes
 *   { "rename": FROM, "to": TO }              rename over (atomic save)
 *   { "copy": FROM, "to": TO }                copyFileSync over
 *   { "unlink": FILE }
 *   { "sleep": MS }                           blocks this process only
 */
import {
  appendFileSync,
  copyFileSync,
  renameSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';

export type Step =
  | { write: string; text: string }
  | { append: string; text: string }
  | { truncate: string }
  | { rename: string; to: string }
  | { copy: string; to: string }
  | { unlink: string }
  | { sleep: number };

const blocker = new Int32Array(new SharedArrayBuffer(4));
const steps = JSON.parse(process.argv[2] ?? '[]') as Step[];
const start = performance.now();
const times: number[] = [];
for (const step of steps) {
  times.push(performance.now() - start);
  if ('sleep' in step) Atomics.wait(blocker, 0, 0, step.sleep);
  else if ('write' in step) writeFileSync(step.write, step.text);
  else if ('append' in step) appendFileSync(step.append, step.text);
  else if ('truncate' in step) truncateSync(step.truncate, 0);
  else if ('rename' in step) renameSync(step.rename, step.to);
  else if ('copy' in step) copyFileSync(step.copy, step.to);
  else unlinkSync(step.unlink);
}
process.stdout.write(JSON.stringify(times));
