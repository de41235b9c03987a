// @ts-check
// Small SVG time charts (checkpoint duration and size over time).
import { s } from './dom.js';
import { time } from './format.js';

/**
 * @typedef {{ t: number, v: number, id: number, tip: string }} Point
 * @typedef {{ name: string, cls: string, points: Point[], line?: boolean, marker: 'circle' | 'diamond' | 'cross' }} Series
 */

const M = { left: 64, right: 16, top: 28, bottom: 26 };

/** Round tick steps: 1, 2, 5 times a power of ten. @param {number} span @param {number} ticks */
function niceStep(span, ticks) {
  const raw = span / ticks;
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600].map((x) => x * 1000);

/**
 * @param {Point} p
 * @param {number} x
 * @param {number} y
 * @param {Series} se
 */
function marker(p, x, y, se) {
  const attrs = { class: `mark ${se.cls}`, 'data-key': `${se.cls}-${p.id}`, 'data-checkpoint': p.id };
  const tip = s('title', null, p.tip);
  if (se.marker === 'diamond') return s('path', { ...attrs, d: `M${x},${y - 6} L${x + 6},${y} L${x},${y + 6} L${x - 6},${y} Z` }, tip);
  if (se.marker === 'cross') return s('path', { ...attrs, d: `M${x - 5},${y - 5} L${x + 5},${y + 5} M${x - 5},${y + 5} L${x + 5},${y - 5}` }, tip);
  return s('circle', { ...attrs, cx: x, cy: y, r: 3.5 }, tip);
}

/**
 * A chart of values over time.
 * @param {{ title: string, series: Series[], yFormat: (v: number) => string, from: number, to: number, width?: number, height?: number, cls?: string }} o
 */
export function timeChart(o) {
  const width = o.width ?? 900;
  const height = o.height ?? 190;
  const iw = width - M.left - M.right;
  const ih = height - M.top - M.bottom;
  const all = o.series.flatMap((se) => se.points);
  const maxV = Math.max(1, ...all.map((p) => p.v));
  const yStep = niceStep(maxV, 4);
  const yMax = Math.ceil(maxV / yStep) * yStep;
  const from = o.from;
  const to = Math.max(o.to, from + 1000);
  const x = (/** @type {number} */ t) => M.left + ((t - from) / (to - from)) * iw;
  const y = (/** @type {number} */ v) => M.top + ih - (v / yMax) * ih;
  const grid = [];
  for (let v = 0; v <= yMax + yStep / 2; v += yStep) {
    grid.push(s('line', { class: 'grid', x1: M.left, x2: M.left + iw, y1: y(v), y2: y(v) }));
    grid.push(s('text', { class: 'tick', x: M.left - 8, y: y(v) + 4, 'text-anchor': 'end' }, o.yFormat(v)));
  }
  const tStep = TIME_STEPS.find((st) => (to - from) / st <= 7) ?? TIME_STEPS.at(-1) ?? 60_000;
  for (let t = Math.ceil(from / tStep) * tStep; t <= to; t += tStep) {
    grid.push(s('line', { class: 'grid grid-x', x1: x(t), x2: x(t), y1: M.top, y2: M.top + ih }));
    grid.push(s('text', { class: 'tick', x: x(t), y: height - 6, 'text-anchor': 'middle' }, time(t)));
  }
  const body = o.series.map((se) => {
    const pts = [...se.points].sort((a, b) => a.t - b.t);
    return s(
      'g',
      { class: `series ${se.cls}`, 'data-key': se.cls },
      se.line && pts.length > 1 ? s('polyline', { class: 'line', points: pts.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ') }) : null,
      ...pts.map((p) => marker(p, x(p.t), y(p.v), se)),
    );
  });
  let lx = M.left + iw;
  const legend = [...o.series].reverse().map((se) => {
    const w = 22 + se.name.length * 6.6;
    lx -= w;
    return s('g', { class: `legend ${se.cls}`, transform: `translate(${lx},${10})` }, marker({ t: 0, v: 0, id: 0, tip: se.name }, 5, 0, se), s('text', { x: 13, y: 4 }, se.name));
  });
  return s(
    'svg',
    { class: `chart ${o.cls ?? ''}`, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': o.title },
    s('text', { class: 'chart-title', x: M.left, y: 14 }, o.title),
    ...legend,
    ...grid,
    s('rect', { class: 'frame', x: M.left, y: M.top, width: iw, height: ih }),
    all.length === 0 ? s('text', { class: 'empty', x: M.left + iw / 2, y: M.top + ih / 2, 'text-anchor': 'middle' }, 'No checkpoints yet') : null,
    ...body,
  );
}
