// Throughput measurement for a shared, noisy machine. Candidates are warmed up, then measured in rounds;
// within a round they take turns in short slices (a few ms each, order alternating every pass) until each
// has run for the round's time, so a burst of load from another process lands on all of them alike. Each
// candidate's figure is its median round, and comparisons use the median of per-round ratios: two
// candidates measured in the same round saw the same machine.
import { performance } from 'node:perf_hooks';

/**
 * One thing to time. The function returns true when the operation succeeded; any false return is a
 * failure and stops the measurement, so only successful operations are ever counted.
 */
export type Candidate =
  | { readonly id: string; readonly sync: () => boolean }
  | { readonly id: string; readonly async: () => Promise<boolean> };

export interface MeasureOptions {
  rounds: number;
  /** Minimum run time per candidate per round, made of slices. */
  roundMs: number;
  /** Minimum warm-up time per candidate, also used to size batches. */
  warmupMs: number;
  /** Length of one turn; default 5 ms. An operation slower than this is one turn. */
  sliceMs?: number;
}

export interface Measurement {
  id: string;
  /** Median over rounds of operations per second (wall clock). */
  opsPerSec: number;
  /** Operations per second in each round, in round order. */
  samples: number[];
  /** (max - min) / median over rounds: how noisy this candidate's rounds were. */
  spread: number;
  /** Operations timed in total (warm-up excluded). */
  operations: number;
}

export class MeasureFailure extends Error {
  constructor(
    readonly candidate: string,
    readonly failures: number,
  ) {
    super(`${candidate}: ${failures} operation(s) failed during timing`);
  }
}

// A batch runs between two clock reads; ~2 ms keeps the clock cost negligible and the overshoot small.
const BATCH_TARGET_MS = 2;
const DEFAULT_SLICE_MS = 5;

interface Timed {
  operations: number;
  ms: number;
}

async function runFor(candidate: Candidate, batch: number, minMs: number): Promise<Timed> {
  let operations = 0;
  let failures = 0;
  const start = performance.now();
  let now = start;
  if ('sync' in candidate) {
    const fn = candidate.sync;
    do {
      for (let i = 0; i < batch; i++) if (!fn()) failures++;
      operations += batch;
      now = performance.now();
    } while (now - start < minMs);
  } else {
    const fn = candidate.async;
    do {
      for (let i = 0; i < batch; i++) if (!(await fn())) failures++;
      operations += batch;
      now = performance.now();
    } while (now - start < minMs);
  }
  if (failures > 0) throw new MeasureFailure(candidate.id, failures);
  return { operations, ms: now - start };
}

/** Warms a candidate up and returns a batch size that takes about BATCH_TARGET_MS. */
async function warmUp(candidate: Candidate, warmupMs: number): Promise<number> {
  let batch = 1;
  const start = performance.now();
  for (;;) {
    const { ms } = await runFor(candidate, batch, 0);
    if (ms < BATCH_TARGET_MS && batch < 1 << 20) batch *= 2;
    if (performance.now() - start >= warmupMs && ms >= BATCH_TARGET_MS / 2) return batch;
    if (performance.now() - start >= warmupMs * 4) return batch;
  }
}

/** The nearest-rank percentile: the smallest value with at least p% of the values at or below it. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export async function measureInterleaved(
  candidates: readonly Candidate[],
  options: MeasureOptions,
): Promise<Measurement[]> {
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  const batches: number[] = [];
  for (const candidate of candidates) batches.push(await warmUp(candidate, options.warmupMs));
  const samples: number[][] = candidates.map(() => []);
  const operations: number[] = candidates.map(() => 0);
  const forward = candidates.map((_, i) => i);
  const backward = [...forward].reverse();
  let pass = 0;
  for (let round = 0; round < options.rounds; round++) {
    const ops = candidates.map(() => 0);
    const ms = candidates.map(() => 0);
    while (ms.some((spent) => spent < options.roundMs)) {
      for (const i of pass++ % 2 === 0 ? forward : backward) {
        if ((ms[i] as number) >= options.roundMs) continue;
        const timed = await runFor(candidates[i] as Candidate, batches[i] as number, sliceMs);
        ops[i] = (ops[i] as number) + timed.operations;
        ms[i] = (ms[i] as number) + timed.ms;
      }
    }
    candidates.forEach((_, i) => {
      samples[i]?.push(((ops[i] as number) / (ms[i] as number)) * 1000);
      operations[i] = (operations[i] as number) + (ops[i] as number);
    });
  }
  return candidates.map((candidate, i) => {
    const values = samples[i] as number[];
    const mid = median(values);
    return {
      id: candidate.id,
      opsPerSec: mid,
      samples: values,
      spread: (Math.max(...values) - Math.min(...values)) / mid,
      operations: operations[i] as number,
    };
  });
}

/**
 * How `a` compares with `b`: the median over rounds of a's ops/s divided by b's in the same round, and
 * in how many rounds the ratio reached `threshold` (when given).
 */
export function compare(
  a: Measurement,
  b: Measurement,
  threshold?: number,
): { ratio: number; rounds: number; roundsAtLeast: number; ratios: number[] } {
  const ratios = a.samples.map((value, i) => value / (b.samples[i] as number));
  return {
    ratio: median(ratios),
    rounds: ratios.length,
    roundsAtLeast: threshold === undefined ? 0 : ratios.filter((r) => r >= threshold).length,
    ratios,
  };
}
