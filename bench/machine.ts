/**
 * The machine a bench run happened on: what the README and results.json must state beside
 * every figure, since none of them means anything without it.
 */
import os from 'node:os';

export interface Machine {
  readonly cpus: number;
  readonly node: string;
}

/** Printed only: helps read a noisy run, but not part of the results.json shape. */
export interface MachineDetail extends Machine {
  readonly model: string;
  readonly memoryGb: number;
  /** 1-minute load average when the bench started: other work on the box skews timings. */
  readonly loadAverage: number;
  readonly platform: string;
}

export function machine(): MachineDetail {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    node: process.version,
    model: cpus[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    loadAverage: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    platform: `${os.platform()} ${os.release()}`,
  };
}
