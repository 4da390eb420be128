// The trends' SVG: well-formed XML a strict reader accepts, one bar per non-zero segment with its value
// in a <title>, nothing the console's CSP would refuse (no script, no <style>, no style= or on* attribute),
// and names escaped so a provider or destination called `<script>` is text.
import { describe, expect, it } from 'vitest';
import { type BarChart, niceMax, stackedBarChart } from '../../../../cli/console/svg-chart';
import { allElements, parseStrictXml, type XmlElement } from '../../../support/strict-xml';

function spec(overrides: Partial<BarChart> = {}): BarChart {
  return {
    id: 'c',
    title: 'Deliveries received per hour, by outcome',
    unit: 'deliveries per hour',
    series: [
      { name: 'processed', colour: '#1a7f37', values: [3, 0, 1, 0] },
      { name: 'failed', colour: '#bf8700', values: [1, 0, 0, 2] },
    ],
    xLabels: ['00:00', undefined, undefined, '03:00'],
    bucketTitles: ['h0', 'h1', 'h2', 'h3'],
    ...overrides,
  };
}

const bars = (svg: XmlElement) => allElements(svg).filter((e) => e.attributes.class === 'bar');
const titleOf = (e: XmlElement) => e.children.find((c) => c.name === 'title')?.text;

describe('stacked bar chart', () => {
  it('is read by a reader that refuses what is not well-formed', () => {
    for (const bad of [
      '<svg><g></svg>',
      '<svg a=1/>',
      '<svg>&nbsp;</svg>',
      '<svg a="x" a="y"/>',
      '<svg>a < b</svg>',
    ])
      expect(() => parseStrictXml(bad), bad).toThrow();
  });

  it('is well-formed SVG with a title naming it', () => {
    const svg = parseStrictXml(stackedBarChart(spec()));
    expect(svg.name).toBe('svg');
    expect(svg.attributes.xmlns).toBe('http://www.w3.org/2000/svg');
    expect(svg.attributes.role).toBe('img');
    expect(titleOf(svg)).toBe('Deliveries received per hour, by outcome');
  });

  it('draws one bar per non-zero segment, stacked in series order, each with its value in a title', () => {
    const drawn = bars(parseStrictXml(stackedBarChart(spec())));
    expect(drawn).toHaveLength(4);
    expect(drawn.map(titleOf)).toEqual([
      'h0: processed 3 (of 4)',
      'h0: failed 1 (of 4)',
      'h2: processed 1 (of 1)',
      'h3: failed 2 (of 2)',
    ]);
    expect(drawn.map((b) => b.attributes.fill)).toEqual(['#1a7f37', '#bf8700', '#1a7f37', '#bf8700']);
    // The failed segment of the first bar sits on top of the processed one.
    const [processed, failed] = drawn as [XmlElement, XmlElement];
    expect(Number(failed.attributes.y) + Number(failed.attributes.height)).toBeCloseTo(
      Number(processed.attributes.y),
      0,
    );
  });

  it('scales the axis to a round top and labels it', () => {
    expect([0, 1, 3, 7, 10, 11, 49, 120].map(niceMax)).toEqual([1, 1, 5, 10, 10, 20, 50, 200]);
    const texts = allElements(parseStrictXml(stackedBarChart(spec()))).filter((e) => e.name === 'text');
    // The highest bar is 4: the axis runs to 5, and 5 has no whole half.
    expect(texts.map((t) => t.text)).toEqual(
      expect.arrayContaining(['0', '5', 'deliveries per hour', 'processed', 'failed', '00:00', '03:00']),
    );
  });

  it('holds nothing the CSP refuses: no script, no style element, no style or event attribute', () => {
    const all = allElements(
      parseStrictXml(stackedBarChart(spec({ unread: { bars: 1.5, title: 'not read' } }))),
    );
    expect(all.some((e) => e.name === 'script' || e.name === 'style' || e.name === 'foreignObject')).toBe(
      false,
    );
    for (const element of all) {
      for (const name of Object.keys(element.attributes)) {
        expect(name).not.toBe('style');
        expect(name).not.toMatch(/^on/i);
        expect(element.attributes[name]).not.toMatch(/javascript:|url\(/i);
      }
    }
  });

  it('escapes names, titles and labels: a name is text, never markup', () => {
    const evil = `<script>alert(1)</script>&"'`;
    const svg = stackedBarChart(
      spec({
        title: evil,
        unit: evil,
        series: [{ name: evil, colour: '"/><script>', values: [1, 0, 0, 0] }],
        xLabels: [evil, undefined, undefined, undefined],
        bucketTitles: [evil, '', '', ''],
      }),
    );
    expect(svg).not.toContain('<script>');
    const parsed = parseStrictXml(svg);
    expect(allElements(parsed).some((e) => e.name === 'script')).toBe(false);
    expect(titleOf(parsed)).toBe(evil);
    expect(titleOf(bars(parsed)[0] as XmlElement)).toBe(`${evil}: ${evil} 1 (of 1)`);
  });

  it('says so in the plot when every value is 0, and draws no bar', () => {
    const svg = parseStrictXml(
      stackedBarChart(
        spec({
          series: [{ name: 'processed', colour: '#1a7f37', values: [0, 0, 0, 0] }],
          emptyText: 'no deliveries',
        }),
      ),
    );
    expect(bars(svg)).toHaveLength(0);
    expect(allElements(svg).some((e) => e.name === 'text' && e.text === 'no deliveries')).toBe(true);
  });

  it('greys the part of the window the read did not reach, with its reason', () => {
    const svg = parseStrictXml(stackedBarChart(spec({ unread: { bars: 2, title: 'not read: the cap' } })));
    const band = allElements(svg).find((e) => e.attributes.class === 'unread');
    expect(band && titleOf(band)).toBe('not read: the cap');
    expect(Number(band?.attributes.width)).toBeGreaterThan(0);
  });
});
