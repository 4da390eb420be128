// The cost model's line items and how they become table rows, for the pipeline's lines (cost-model.ts) and
// the destinations' (destination-cost.ts). Pure.

import type { Prices } from './prices';

export const MILLION = 1_000_000;
export const MONTH_DAYS = 30.4375;
/** Bytes in a billed GB: 10^9, the larger count of GBs (AWS may mean 2^30). */
export const GB = 1e9;

/** One priced item: `perWebhook` units of something at a unit price, and what that makes per million. */
export interface Line {
  key: string;
  item: string;
  unitPrice: string;
  /** How the units were counted, for the table. */
  basis: string;
  perWebhook: number;
  usdPerMillion: number;
}

export type Cell = Pick<Line, 'basis' | 'perWebhook' | 'usdPerMillion'>;

export interface LineList {
  lines: Line[];
  /** `perWebhook` units at `usdEach` dollars each. */
  add(key: string, item: string, unitPrice: string, basis: string, perWebhook: number, usdEach: number): void;
}

export function lineList(): LineList {
  const lines: Line[] = [];
  return {
    lines,
    add: (key, item, unitPrice, basis, perWebhook, usdEach) =>
      lines.push({ key, item, unitPrice, basis, perWebhook, usdPerMillion: perWebhook * usdEach * MILLION }),
  };
}

export function total(list: readonly Line[]): number {
  return list.reduce((sum, line) => sum + line.usdPerMillion, 0);
}

export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) return '-';
  if (value === 0) return '$0';
  if (value >= 100) return `$${value.toFixed(0)}`;
  if (value >= 0.095) return `$${value.toFixed(2)}`;
  return `$${value.toPrecision(2)}`;
}

export function num(value: number, digits = 2): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(digits).replace(/\.?0+$/, '');
}

export interface MergedRow<G extends string> {
  item: string;
  /** The group the row applies to, or all of them. */
  group: 'all' | G;
  unitPrice: string;
  small: Cell | null;
  large: Cell | null;
}

function cell(line: Line | undefined): Cell | null {
  return line ? { basis: line.basis, perWebhook: line.perWebhook, usdPerMillion: line.usdPerMillion } : null;
}

function sameCell(a: Cell | null, b: Cell | null): boolean {
  if (a === null || b === null) return a === b;
  return a.basis === b.basis && Math.abs(a.usdPerMillion - b.usdPerMillion) < 1e-9;
}

/**
 * One row per line item, in `order` (then any other keys as found); a row applies to all groups when it
 * is the same for all. A line only some groups have is named for each that has it: "(REST API only)" for
 * one, "(REST API)", "(HTTP API)" for several.
 */
export function mergeRows<G extends string>(
  groups: readonly G[],
  names: Record<G, string>,
  order: readonly string[],
  small: Record<G, Line[]>,
  large: Record<G, Line[]>,
): MergedRow<G>[] {
  const keys: string[] = [...order];
  for (const group of groups)
    for (const line of [...small[group], ...large[group]]) if (!keys.includes(line.key)) keys.push(line.key);
  const rows: MergedRow<G>[] = [];
  for (const key of keys) {
    const find = (list: Line[]) => list.find((l) => l.key === key);
    const per = Object.fromEntries(
      groups.map((group) => {
        const s = find(small[group]);
        const l = find(large[group]);
        return [group, { s, l, any: s ?? l }];
      }),
    ) as Record<G, { s?: Line; l?: Line; any?: Line }>;
    const present = groups.filter((group) => per[group].any);
    const [first] = present;
    if (!first) continue;
    const shared =
      present.length === groups.length &&
      present.every(
        (group) =>
          sameCell(cell(per[first].s), cell(per[group].s)) &&
          sameCell(cell(per[first].l), cell(per[group].l)),
      );
    for (const group of shared ? [first] : present) {
      const { s, l, any } = per[group];
      const item = (any as Line).item;
      rows.push({
        item: shared
          ? item
          : present.length > 1
            ? `${item} (${names[group]})`
            : item.includes(names[group])
              ? item
              : `${item} (${names[group]} only)`,
        group: shared ? 'all' : group,
        unitPrice: (any as Line).unitPrice,
        small: cell(s),
        large: cell(l),
      });
    }
  }
  return rows;
}

/** CloudWatch Logs, per GB: ingestion, and storage for the retention (a month when it never expires). */
export function logPricePerGb(prices: Prices, retentionDays: number | null): number {
  return (
    prices.unit('cloudwatchLogsIngestionGb') +
    prices.unit('cloudwatchLogsStorageGbMonth') * ((retentionDays ?? MONTH_DAYS) / MONTH_DAYS)
  );
}

export function logPriceLabel(prices: Prices, retentionDays: number | null): string {
  return (
    `${prices.item('cloudwatchLogsIngestionGb').label} + ${prices.item('cloudwatchLogsStorageGbMonth').label} ` +
    `for ${retentionDays ?? 'a month of'} d`
  );
}
