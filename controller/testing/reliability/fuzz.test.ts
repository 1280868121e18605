/**
 * Config fuzzing (issue 8): arbitrary JSON values, settings-shaped documents with arbitrary
 * values, valid documents with awkward names, and random byte mutations of valid JSONC files,
 * written to real files and read through the informer (createSessionStore) and a Session.
 *
 * Invariants: nothing throws out of the informer; after each read either the file has no
 * errors and the desired set is valid and exactly what the files say, or the file has located
 * errors and the desired set is the previous one (keep last good); a session shows
 * ConfigValid=False exactly then and keeps its connections.
 *
 * FUZZ_RUNS (default 400) sets the number of cases; RELIABILITY_SEED replays a failure.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import fc from 'fast-check';
import { canonicalJson } from '../../../api/index.js';
import { ApprovalStore, SessionApprovals } from '../../../approvals/index.js';
import { createSessionStore } from '../../../informers/index.js';
import type { DesiredState, SessionStore } from '../../../informers/types.js';
import { createPool } from '../../../pool/index.js';
import { inMemoryConnector } from '../../../pool/testing/in-memory.js';
import { createSession } from '../../session.js';
import { tempDir } from '../../../testing/temp-dir.js';
import {
  actualServers,
  baselineDocs,
  expectedLists,
  expectedServers,
  parseLikeJson,
  serverProblem,
} from './fuzz-expect.js';
import {
  contentBytes,
  fuzzCaseArb,
  mutationArb,
  mutate,
  type FuzzCase,
  type Target,
} from './fuzz-inputs.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = process.env.RELIABILITY_SEED;
const seed = SEED === undefined ? {} : { seed: Number(SEED) };

interface Files {
  readonly root: string;
  /** Deletes `root` and all it holds. */
  readonly remove: () => void;
  readonly home: string;
  readonly workspace: string;
  readonly paths: Record<Target, string>;
  write(target: Target, content: Buffer | string): void;
}

function tempFiles(): Files {
  const { path: root, remove } = tempDir('mcpctl-fuzz-');
  const home = join(root, 'home');
  const workspace = join(root, 'ws');
  const paths: Record<Target, string> = {
    user: join(home, '.qwen', 'settings.json'),
    workspace: join(workspace, '.qwen', 'settings.json'),
    project: join(workspace, '.mcp.json'),
    cli: join(root, 'cli.json'),
    trust: join(home, '.qwen', 'trustedFolders.json'),
  };
  mkdirSync(join(home, '.qwen'), { recursive: true });
  mkdirSync(join(workspace, '.qwen'), { recursive: true });
  return {
    root,
    remove,
    home,
    workspace,
    paths,
    write: (target, content) => writeFileSync(paths[target], content),
  };
}

function stateText(s: DesiredState): string {
  return canonicalJson({
    servers: actualServers(s.kinds.McpServer.servers),
    gating: s.kinds.McpServer.gating,
    mcp: s.mcp ?? null,
    trusted: s.trusted,
  });
}

/** Everything wrong with the store after reading `c` over the baseline; empty when fine. */
function problemsAfter(
  c: FuzzCase,
  bytes: Buffer,
  files: Files,
  before: DesiredState,
  after: DesiredState,
): string[] {
  const problems: string[] = [];
  const file = files.paths[c.target];
  const errors = after.sources.filter((s) => s.file === file).flatMap((s) => s.errors);
  const elsewhere = after.sources.filter((s) => s.file !== file && s.errors.length > 0);
  if (elsewhere.length > 0)
    problems.push(`errors reported for untouched files: ${canonicalJson(elsewhere)}`);
  if (errors.length > 0) {
    for (const e of errors)
      if (e.file !== file || e.message.trim() === '')
        problems.push(`unlocated error ${canonicalJson(e)}`);
    if (stateText(after) !== stateText(before))
      problems.push(
        `invalid file, but the desired state moved: ${stateText(before)} → ${stateText(after)}`,
      );
    if (c.content.kind === 'valid' && c.target !== 'trust')
      problems.push(`a valid document was refused: ${canonicalJson(errors)}`);
    return problems;
  }
  for (const [name, s] of Object.entries(after.kinds.McpServer.servers)) {
    const p = serverProblem(name, s.config);
    if (p !== undefined) problems.push(`accepted an invalid server: ${p}`);
  }
  if (!after.trusted) problems.push('the workspace became untrusted');
  const parsed = parseLikeJson(bytes);
  if (parsed.ok) {
    const docs = { ...baselineDocs(files.workspace), [c.target]: parsed.doc };
    const want = expectedServers(docs);
    const got = actualServers(after.kinds.McpServer.servers);
    if (got !== want) problems.push(`servers ${got}, the files say ${want}`);
    const lists = canonicalJson({ allowed: after.mcp?.allowed, excluded: after.mcp?.excluded });
    const wantLists = expectedLists(docs);
    if (lists !== wantLists) problems.push(`gating lists ${lists}, the files say ${wantLists}`);
  }
  return problems;
}

describe('config fuzzing through the informer', { timeout: 900_000 }, () => {
  it(
    `${RUNS} fuzzed files: never a throw; valid and exact, or errors with the last good kept`,
    { timeout: 600_000 },
    async (t) => {
      const files = tempFiles();
      const baseline = baselineDocs(files.workspace);
      const baselineText = (target: Target) => `${JSON.stringify(baseline[target], null, 2)}\n`;
      for (const target of Object.keys(files.paths) as Target[])
        files.write(target, baselineText(target));
      const store: SessionStore = createSessionStore({
        workspace: files.workspace,
        home: files.home,
        systemSettingsPath: join(files.root, 'no-system.json'),
        mcpConfigPath: files.paths.cli,
        approvals: () => 'approved',
        // Reads happen through resync(); the watcher must not commit a half-written file.
        debounceMs: 600_000,
      });
      const counts = { cases: 0, refused: 0, accepted: 0 };
      try {
        await store.start();
        const reference = stateText(store.current());
        await fc.assert(
          fc.asyncProperty(fuzzCaseArb, async (c) => {
            // Every file back to the baseline (the previous case may have hit another one).
            for (const target of Object.keys(files.paths) as Target[])
              files.write(target, baselineText(target));
            await store.resync();
            const before = store.current();
            assert.equal(stateText(before), reference, 'the baseline reads back as the baseline');
            const bytes = contentBytes(c, files.workspace);
            files.write(c.target, bytes);
            await store.resync();
            const after = store.current();
            const problems = problemsAfter(c, bytes, files, before, after);
            assert.deepEqual(
              problems,
              [],
              `${c.target} ← ${JSON.stringify(bytes.toString('utf8'))}`,
            );
            counts.cases += 1;
            if (after.sources.some((s) => s.errors.length > 0)) counts.refused += 1;
            else counts.accepted += 1;
          }),
          { numRuns: RUNS, ...seed },
        );
      } finally {
        await store.close();
        files.remove();
      }
      t.diagnostic(`cases ${counts.cases}: refused ${counts.refused}, accepted ${counts.accepted}`);
      assert.equal(counts.cases, RUNS);
      assert.ok(counts.refused > 0 && counts.accepted > 0, 'both outcomes were exercised');
    },
  );

  it(
    'a session under mutated settings: ConfigValid=False exactly on errors, and nothing restarts',
    { timeout: 300_000 },
    async (t) => {
      const files = tempFiles();
      const good = Buffer.from(
        `{\n  // two servers\n  "mcpServers": {\n    "a": { "command": "mem", "args": ["1"] },\n    "b": { "command": "mem", "args": ["2"], "env": { "K": "v" } },\n  },\n  "mcp": { "excluded": [] },\n}\n`,
      );
      files.write('user', good);
      const mem = inMemoryConnector(() => {
        const server = new McpServer({ name: 'fuzz', version: '1.0.0' });
        server.registerTool('t', {}, () => ({ content: [] }));
        return server;
      });
      const pool = createPool({ connector: mem.connector, drainDelayMs: 0 });
      const session = await createSession({
        workspace: files.workspace,
        home: files.home,
        systemSettingsPath: join(files.root, 'no-system.json'),
        pool,
        approvals: await ApprovalStore.open({ home: files.home, env: {} }),
        sessionApprovals: new SessionApprovals(),
        debounceMs: 600_000,
      });
      const counts = { invalid: 0, valid: 0 };
      const live = () =>
        canonicalJson(
          pool
            .stats()
            .map((e) => e.key)
            .sort(),
        );
      const configValid = () => session.conditions.find((c) => c.type === 'ConfigValid');
      try {
        await session.settled();
        const goodLive = live();
        assert.equal(pool.stats().length, 2);
        await fc.assert(
          fc.asyncProperty(
            fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
            async (mutations) => {
              files.write('user', good);
              await session.reload();
              assert.equal(live(), goodLive, 'the good file serves its two servers');
              const servedBefore = session
                .kind('McpServer')
                .list()
                .map((s) => `${s.metadata.name}:${s.status.connectionId}`);
              const bytes = mutate(good, mutations);
              files.write('user', bytes);
              await session.reload();
              const errors = session.desired().sources.flatMap((s) => s.errors);
              const cond = configValid();
              if (errors.length > 0) {
                counts.invalid += 1;
                assert.equal(cond?.status, 'False', 'errors show as ConfigValid=False');
                assert.ok(
                  cond?.message.includes(files.paths.user),
                  `the message names the file: ${cond?.message}`,
                );
                assert.equal(live(), goodLive, 'the last good set keeps running');
                assert.deepEqual(
                  session
                    .kind('McpServer')
                    .list()
                    .map((s) => `${s.metadata.name}:${s.status.connectionId}`),
                  servedBefore,
                );
              } else {
                counts.valid += 1;
                assert.equal(cond?.status, 'True', `no errors, yet ${cond?.message}`);
              }
            },
          ),
          { numRuns: Math.max(20, Math.round(RUNS / 4)), ...seed },
        );
      } finally {
        await session.close();
        await pool.close();
        files.remove();
      }
      t.diagnostic(`mutated settings: ${counts.invalid} invalid, ${counts.valid} valid`);
      assert.ok(counts.invalid > 0, 'some mutations broke the file');
    },
  );
});
