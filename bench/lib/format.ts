// Number formatting and the text table shared by every section.
import Table from 'cli-table3';
import type { Column, Row } from './section';

/** 3 significant digits with a k/M suffix: 987, 12.3k, 456k, 1.23M. */
export function formatOps(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'n/a';
  if (value >= 1e6) return `${(value / 1e6).toPrecision(3)}M`;
  if (value >= 1e3) return `${(value / 1e3).toPrecision(3)}k`;
  return value.toPrecision(3);
}

export function formatRatio(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'n/a';
  return `${value.toFixed(2)}x`;
}

export function formatPercent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

export function renderTable<R extends Row>(columns: readonly Column<R>[], rows: readonly R[]): string {
  const table = new Table({
    head: columns.map((c) => c.header),
    colAligns: columns.map((c) => c.align ?? 'left'),
    style: { head: [], border: [], compact: false },
  });
  for (const row of rows) table.push(columns.map((c) => c.cell(row)));
  return table.toString();
}
