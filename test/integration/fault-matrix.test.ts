// The fault matrix: every dependency call of both Lambdas, failed in each way AWS fails it, with a sender
// that never retries (GitHub) and one that retries with backoff (Stripe). Real deliveries through the real
// handlers, against dynalite and fauxqs through the real SDK clients; faults the emulators cannot produce
// are injected per SDK attempt (test/support/faults.ts). The table it prints is the one in bench/RESULTS.md.
import { afterAll, describe, expect, it } from 'vitest';
import { useEmulators } from '../support/emulators';
import {
  allCells,
  type CellResult,
  MATRIX_CONFIG,
  renderSqsDoubleSummary,
  renderTable,
  runCell,
} from '../support/fault-matrix';

const ctx = useEmulators({ config: MATRIX_CONFIG, strictSqs: true });
const results: CellResult[] = [];

afterAll(() => {
  const order = allCells().map((c) => `${c.op}|${c.fault}|${c.sender}`);
  results.sort(
    (a, b) =>
      order.indexOf(`${a.op}|${a.fault}|${a.sender}`) - order.indexOf(`${b.op}|${b.fault}|${b.sender}`),
  );
  const through = renderSqsDoubleSummary(ctx.sqsDouble?.seed, results);
  console.log(`\nfault matrix (${results.length} cells), ${through}\n${renderTable(results)}\n`);
});

describe.concurrent('fault matrix', () => {
  it.each(allCells())(
    '$op, $fault, $sender sender: nothing answered 2xx is lost, no 409 to a retry, no 202 to a conflict',
    async (cell) => {
      const result = await runCell(ctx, cell);
      results.push(result);
      // The fault fired: a cell that never met it would pass whatever the code does.
      expect(result.faultsInjected).toBeGreaterThan(0);
      // Every delivery answered 2xx is processed (the dead-letter row: dead-lettered, in the DLQ).
      expect(result.lost).toBe(0);
      expect(result.processed).toBeGreaterThanOrEqual(result.accepted);
      // Same-body retries are never 409; a different body under an accepted id is never 202.
      expect(result.sameBody409).toBe(0);
      expect(result.conflict202).toBe(0);
      // A sender that retries gets every delivery accepted.
      if (cell.sender === 'stripe') expect(result.accepted).toBe(result.sent);
      // An answer the SDK lost and retried is our own write: it never turns into a 5xx the sender gives up on.
      if (cell.fault === 'applied, answer lost' && cell.op !== 'handler') expect(result.refused).toBe(0);
      // A second effect only where the inbox cannot prevent it (the effect ran before a crash or a throw).
      if (!result.unavoidable) expect(result.effectsTwice).toBe(0);
    },
    90_000,
  );
});
