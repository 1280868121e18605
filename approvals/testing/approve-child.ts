/**
 * Run by concurrency.test.ts as a separate process: opens the approval store at FILE, prints
 * `ready`, waits for `go` on stdin, approves COUNT servers `PREFIX-0 … PREFIX-(COUNT-1)` for
 * project ROOT one write at a time, prints `done`.
 *
 * Separate processes are the point: their writes can only be kept apart by the cross-process
 * lock and the re-read under it, not by anything in one process's memory.
 *
 * Usage: node approve-child.js FILE ROOT PREFIX COUNT
 */
import { createInterface } from 'node:readline';
import { approvalHashOf } from '../../api/index.js';
import { ApprovalStore } from '../store.js';
import { DONE, GO, READY, childServerConfig, childServerName } from './child-protocol.js';

async function waitForGo(): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === GO) {
      lines.close();
      return;
    }
  }
  throw new Error('stdin closed before "go"');
}

async function main(): Promise<void> {
  const [file, root, prefix, countText] = process.argv.slice(2);
  const count = Number(countText);
  if (!file || !root || !prefix || !Number.isInteger(count) || count < 1) {
    throw new Error('usage: approve-child FILE ROOT PREFIX COUNT');
  }
  const store = await ApprovalStore.open({ path: file });
  process.stdout.write(`${READY}\n`);
  await waitForGo();
  for (let i = 0; i < count; i++) {
    const name = childServerName(prefix, i);
    await store.approve(root, name, approvalHashOf(childServerConfig(name)));
  }
  process.stdout.write(`${DONE}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
