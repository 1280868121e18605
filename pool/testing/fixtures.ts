/**
 * Test helpers: where the compiled fixtures are, how to start them, and how to watch
 * processes. Not exported from `pool/index.ts`.
 *
 * The build output mirrors the source tree (`<out>/pool/testing/fixtures.js`,
 * `<out>/e2e/fixtures/*.js`), so the fixtures are found relative to this file whatever the
 * output folder is called.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../api/index.js';
import { until } from '../../testing/until.js';

export const STDIO_FIXTURE = fileURLToPath(
  new URL('../../e2e/fixtures/stdio-server.js', import.meta.url),
);
export const HTTP_FIXTURE = fileURLToPath(
  new URL('../../e2e/fixtures/http-server.js', import.meta.url),
);

/** A stdio server config that runs the fixture with these switches. */
export function fixtureConfig(
  args: readonly string[] = [],
  extra: McpServerConfig = {},
): McpServerConfig {
  return { command: process.execPath, args: [STDIO_FIXTURE, ...args], ...extra };
}

/** Waits for a pid file the fixture writes; throws when it does not appear in time. */
export function readPid(file: string, timeoutMs = 5000): Promise<number> {
  return until(
    `a pid in ${file}`,
    () => {
      const pid = Number(readFileSync(file, 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    },
    { timeoutMs },
  );
}

// The one temp-dir helper of the tests, re-exported for the pool tests that import it here.
export { tempDir, type TempDir } from '../../testing/temp-dir.js';

export interface HttpFixtureProcess {
  readonly url: string;
  readonly sseUrl: string;
  readonly pid: number;
  /** Ends the process and resolves when it has exited. */
  stop(): Promise<void>;
}

/** Starts e2e/fixtures/http-server.js as a process and reads the URLs it prints. */
export async function startHttpFixtureProcess(
  args: readonly string[] = [],
): Promise<HttpFixtureProcess> {
  const child = spawn(process.execPath, [HTTP_FIXTURE, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const lines = createInterface({ input: child.stdout });
  const urls: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('http fixture printed no URLs in 10 s')),
        10_000,
      );
      child.once('exit', (code) => reject(new Error(`http fixture exited with ${code}`)));
      lines.on('line', (line) => {
        urls.push(line.trim());
        if (urls.length === 2) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } catch (err) {
    await stop();
    throw err;
  } finally {
    lines.close();
  }
  const [url, sseUrl] = urls as [string, string];
  return { url, sseUrl, pid: child.pid ?? -1, stop };
}
