import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benchGoals, goalLines } from './goals.js';

describe('the goals object', () => {
  it('judges each measured figure and says which goals are missed', () => {
    const g = benchGoals({
      machine: { cpus: 2, node: 'v20' },
      reload: { reloadMs: 120, rawConnectMs: 100, settleMs: 40, overheadRatio: 1.2 },
      scale: [
        { servers: 10, connects: 1, disconnects: 1, cpuMs: 5, themeEditReconciles: 0 },
        { servers: 10_000, connects: 1, disconnects: 1, cpuMs: 130, themeEditReconciles: 0 },
        { servers: 100, failed: 'crashed' },
      ],
      gapUnchanged: { mcpctlMs: 0, restartAllMs: 1600 },
      gapChanged: { failed: 'a server dropped' },
      pool: { sessions: 10, servers: 5, processes: 5, unpooledProcesses: 50, daemonRssMb: 99 },
      serve: {
        serveMb: 43.1,
        modulesMb: 50,
        wholeProgramMb: 61.2,
        floorMb: 39.3,
        goal: { serveMb: 45, met: true },
      },
    });
    assert.deepEqual(Object.keys(g.goals).sort(), [
      'gapUnchanged',
      'pool',
      'reload',
      'scale.connects',
      'scale.cpu10k',
      'scale.themeEdit',
      'serve',
    ]);
    assert.equal(g.goals['reload']?.met, true, '1.2 is within ≤ 1.2');
    assert.equal(g.goals['reload']?.floor, 100);
    assert.equal(g.goals['scale.cpu10k']?.met, false);
    assert.equal(g.goals['serve']?.ratio, 1.1);
    assert.equal(g.met, false, 'one goal missed is the whole missed');
    assert.match(goalLines(g)[0] ?? '', /^goals: 6 of 7 met; missed: scale\.cpu10k \(/);
  });

  it('takes the figures that judge themselves at their word; nothing measured is nothing met or missed', () => {
    const g = benchGoals({
      restart: { mcpctlMs: 900, byHandMs: 3000, spawnMs: 100, goal: { maxMs: 1000, met: true } },
      lsp: {
        goals: {
          warmSpeedup: { min: 5, met: true },
          perRequestRatio: { max: 1.5, met: false },
        },
      },
    });
    assert.equal(g.goals['restart']?.goal, 'recovered ≤ 1000 ms');
    assert.equal(g.goals['lsp.warmSpeedup']?.goal, '≥ 5');
    assert.equal(g.goals['lsp.perRequestRatio']?.met, false);
    assert.deepEqual(benchGoals({}), { met: true, goals: {} });
  });

  it('the diagnostics figure: both ratios against today’s rule as floor, and the first asks', () => {
    const figure = (ratio: number, firstAsk: number) => ({
      lspDiagnostics: {
        rounds: 10,
        errorReportedTodayMs: 800,
        errorReportedMs: 800 * ratio,
        errorRatio: ratio,
        fixClearedTodayMs: 700,
        fixClearedMs: 140,
        fixRatio: 0.2,
        firstAskToday: { error: 8, fix: 10 },
        firstAsk: { error: firstAsk, fix: 10 },
        goals: {
          errorRatio: { max: 0.8, met: ratio <= 0.8 },
          fixRatio: { max: 0.8, met: true },
          firstAsk: { rounds: 10, met: firstAsk === 10 },
        },
      },
    });
    const met = benchGoals(figure(0.25, 10));
    assert.deepEqual(Object.keys(met.goals).sort(), [
      'lspDiagnostics.errorReported',
      'lspDiagnostics.firstAsk',
      'lspDiagnostics.fixCleared',
    ]);
    assert.deepEqual(met.goals['lspDiagnostics.errorReported'], {
      goal: "a new error reported ≤ 0.8× today's rule",
      figure: 200,
      floor: 800,
      ratio: 0.25,
      met: true,
    });
    assert.equal(met.goals['lspDiagnostics.fixCleared']?.floor, 700);
    assert.equal(met.goals['lspDiagnostics.firstAsk']?.figure, 10);
    assert.equal(met.met, true);
    const slow = benchGoals(figure(0.9, 10));
    assert.equal(slow.goals['lspDiagnostics.errorReported']?.met, false);
    assert.equal(slow.met, false);
    const wrongOnce = benchGoals(figure(0.25, 9));
    assert.equal(wrongOnce.goals['lspDiagnostics.firstAsk']?.met, false);
    assert.equal(wrongOnce.goals['lspDiagnostics.firstAsk']?.figure, 9);
    assert.match(
      goalLines(wrongOnce)[0] ?? '',
      /^goals: 2 of 3 met; missed: lspDiagnostics\.firstAsk/,
    );
    assert.deepEqual(benchGoals({ lspDiagnostics: { failed: 'no server' } }).goals, {});
  });

  it('the lazy figure: warm listing against starting them all, with no process; a first call against a raw spawn', () => {
    const lazy = (warmProcesses: number, firstCallRatio: number) => ({
      lazy: {
        servers: 30,
        listWarmMs: 190,
        listColdMs: 7900,
        listSpeedup: 41.6,
        warmProcesses,
        firstCallMs: 400 * firstCallRatio,
        rawCallMs: 400,
        firstCallRatio,
        goal: { listSpeedup: 20, firstCallRatio: 1.1, met: true },
      },
    });
    const good = benchGoals(lazy(0, 0.9));
    assert.equal(good.goals['lazy.list']?.met, true);
    assert.equal(good.goals['lazy.list']?.floor, 7900);
    assert.equal(good.goals['lazy.firstCall']?.met, true);
    const started = benchGoals(lazy(3, 1.2));
    assert.equal(started.goals['lazy.list']?.met, false, 'a process while listing misses it');
    assert.equal(started.goals['lazy.firstCall']?.met, false);
  });
});
