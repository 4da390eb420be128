// What the numbers were measured on. Printed at the top of every run and included in JSON output.
import os from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  platform: string;
  memoryGiB: number;
  /** 1-minute load average when the run started: a hint of how noisy the machine was. */
  loadAverage1m: number;
  date: string;
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadAverage1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    date: new Date().toISOString(),
  };
}
