/**
 * FIFOs (named pipes) for the tests of reads that must never wait: opening one for reading
 * blocks until a writer comes, so a daemon that opens one the ordinary way is stuck.
 *
 * Guarantees:
 * - `makeFifo(file)` makes a FIFO at `file` (the system's `mkfifo`).
 * - `releaseReaders(fifos)` opens each for writing, non-blocking (so it never waits itself),
 *   and closes it: a reader stuck on one gets its end of file, so a failing test cannot hang
 *   the test process. A FIFO nobody reads, or one that is gone, is skipped.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';

export function makeFifo(file: string): void {
  execFileSync('mkfifo', [file]);
}

export function releaseReaders(fifos: readonly string[]): void {
  for (const fifo of fifos) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // ENXIO: nobody is reading it, nothing to release. ENOENT: gone.
    }
  }
}
