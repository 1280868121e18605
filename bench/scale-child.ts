/**
 * Runs one row of the scale figure in a process of its own and prints it as one JSON line.
 *
 * Why a child: each N gets a clean heap (10 000 in-memory connections are most of a GiB), its
 * CPU time is not mixed with the other figures', and it can run with --expose-gc so setup
 * garbage is collected before the measured reload instead of during it.
 *
 * Usage: node --expose-gc scale-child.js N [edits] [profile.cpuprofile]
 */
import { scaleRow } from './scale.js';

const [nText, editsText, profileFile] = process.argv.slice(2);
const n = Number(nText);
if (!Number.isSafeInteger(n) || n < 1) {
  process.stderr.write('usage: scale-child.js N [edits] [profile-file]\n');
  process.exit(2);
}
const result = await scaleRow(n, {
  ...(editsText ? { edits: Number(editsText) } : {}),
  ...(profileFile ? { profileFile } : {}),
});
process.stdout.write(`${JSON.stringify(result)}\n`);
