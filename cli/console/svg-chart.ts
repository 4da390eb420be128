// A stacked bar chart as inline SVG, drawn on the server. Colours, sizes and fonts are presentation
// attributes (fill=, font-size=), never style attributes or <style>: the console's CSP (security.ts)
// allows only its own stylesheet, and presentation attributes are not styles. No script: a bar's value
// shows on hover through its <title>. Every name passes through `esc`: providers and destinations are
// the operator's, but an event's fields are whoever sent it.
import { esc } from './html';

export interface ChartSeries {
  name: string;
  /** A colour the chart writes into fill= (a #rrggbb from the console's palette). */
  colour: string;
  values: readonly number[];
}

export interface BarChart {
  /** The chart's id in the page, and its accessible name. */
  id: string;
  title: string;
  /** What a bar counts, shown above the axis: `deliveries per hour`. */
  unit: string;
  series: readonly ChartSeries[];
  /** Under each bar, or undefined for none (one label every few bars). */
  xLabels: readonly (string | undefined)[];
  /** Each bar's time span, for its hover title: `2026-12-01 14:00–15:00 UTC`. */
  bucketTitles: readonly string[];
  /** A grey band over the first `bars` bars (fractional) that the data does not cover, and why. */
  unread?: { bars: number; title: string };
  /** Shown in the plot when every value is 0. */
  emptyText?: string;
}

const WIDTH = 600;
const HEIGHT = 200;
const LEFT = 40;
const RIGHT = 8;
const TOP = 34;
const BOTTOM = 24;
const TEXT = '#656d76';
const GRID = '#d0d7de';
const FONT = 'font-family="system-ui, sans-serif" font-size="11"';

/** The smallest 1, 2 or 5 times a power of ten at or above `value` (at least 1). */
export function niceMax(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

const fixed = (n: number) => String(Math.round(n * 10) / 10);

export function stackedBarChart(chart: BarChart): string {
  const bars = chart.xLabels.length;
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const totals = Array.from({ length: bars }, (_, i) =>
    chart.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0),
  );
  const top = niceMax(Math.max(0, ...totals));
  const slot = plotWidth / Math.max(1, bars);
  const barWidth = Math.max(1, slot * 0.78);
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight;
  const parts: string[] = [];

  // Grid and y axis: 0, half and the top, whole numbers only.
  const ticks = top % 2 === 0 ? [0, top / 2, top] : [0, top];
  for (const tick of ticks) {
    parts.push(
      `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${fixed(y(tick))}" y2="${fixed(y(tick))}" stroke="${GRID}" stroke-width="1"/>`,
      `<text x="${LEFT - 6}" y="${fixed(y(tick) + 4)}" text-anchor="end" fill="${TEXT}" ${FONT}>${esc(tick)}</text>`,
    );
  }
  parts.push(`<text x="${LEFT}" y="12" fill="${TEXT}" ${FONT}>${esc(chart.unit)}</text>`);

  // Legend, right-aligned on the top line, in stacking order.
  let legendX = WIDTH - RIGHT;
  const legend: string[] = [];
  for (const series of [...chart.series].reverse()) {
    const width = 18 + series.name.length * 6.2;
    legendX -= width + 10;
    legend.unshift(
      `<g class="legend-item"><rect x="${fixed(legendX)}" y="3" width="10" height="10" rx="2" fill="${esc(series.colour)}"/><text x="${fixed(legendX + 14)}" y="12" fill="${TEXT}" ${FONT}>${esc(series.name)}</text></g>`,
    );
  }
  parts.push(...legend);

  if (chart.unread && chart.unread.bars > 0) {
    parts.push(
      `<rect class="unread" x="${LEFT}" y="${TOP}" width="${fixed(Math.min(bars, chart.unread.bars) * slot)}" height="${plotHeight}" fill="#eaeef2"><title>${esc(chart.unread.title)}</title></rect>`,
    );
  }

  // The bars: one rect per non-zero segment, stacked in series order from the axis up.
  for (let i = 0; i < bars; i++) {
    let base = 0;
    const x = LEFT + i * slot + (slot - barWidth) / 2;
    for (const series of chart.series) {
      const value = series.values[i] ?? 0;
      if (value <= 0) continue;
      const y0 = y(base);
      const y1 = y(base + value);
      base += value;
      parts.push(
        `<rect class="bar" x="${fixed(x)}" y="${fixed(y1)}" width="${fixed(barWidth)}" height="${fixed(Math.max(0.5, y0 - y1))}" fill="${esc(series.colour)}"><title>${esc(`${chart.bucketTitles[i] ?? ''}: ${series.name} ${value} (of ${totals[i]})`)}</title></rect>`,
      );
    }
    const label = chart.xLabels[i];
    if (label !== undefined) {
      parts.push(
        `<line x1="${fixed(LEFT + i * slot)}" x2="${fixed(LEFT + i * slot)}" y1="${TOP + plotHeight}" y2="${TOP + plotHeight + 4}" stroke="${GRID}"/>`,
        `<text x="${fixed(LEFT + i * slot)}" y="${HEIGHT - 6}" text-anchor="middle" fill="${TEXT}" ${FONT}>${esc(label)}</text>`,
      );
    }
  }
  if (totals.every((t) => t === 0) && chart.emptyText) {
    parts.push(
      `<text x="${LEFT + plotWidth / 2}" y="${TOP + plotHeight / 2}" text-anchor="middle" fill="${TEXT}" ${FONT}>${esc(chart.emptyText)}</text>`,
    );
  }
  const titleId = `${chart.id}-title`;
  return `<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="${esc(chart.id)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-labelledby="${esc(titleId)}"><title id="${esc(titleId)}">${esc(chart.title)}</title>${parts.join('')}</svg>`;
}
