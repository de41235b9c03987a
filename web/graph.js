// @ts-check
// The job graph: one box per vertex (a chain of operators), arrows for the connections between
// them, laid out left to right by depth. Boxes are coloured by where their time goes (load.js).
import { s } from './dom.js';
import { clip, count, percent } from './format.js';
import { loadColours, vertexLoad } from './load.js';
/** @import { VertexView as Vertex } from '../src/rest/rest-views.ts' */

const W = 240;
const H = 96;
const GAP_X = 96;
const GAP_Y = 28;
const PAD = 16;
/** The font of `.vertex-name` (style.css), to measure names with. */
const NAME_FONT = '700 13px';

/** @type {CanvasRenderingContext2D | null | undefined} */
let measurer;

/**
 * A vertex name cut with an ellipsis to the width it has in its box (the box's title has the whole
 * name): a chain's name is often longer than a box, and SVG text does not wrap. Measured in the
 * page's own font; by characters where there is no canvas.
 * @param {string} name @param {number} width
 */
function fitName(name, width) {
  if (measurer === undefined) {
    measurer = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
    if (measurer) measurer.font = `${NAME_FONT} ${getComputedStyle(document.body).fontFamily}`;
  }
  const m = measurer;
  if (!m) return clip(name, 26);
  if (m.measureText(name).width <= width) return name;
  let n = name.length - 1;
  while (n > 1 && m.measureText(`${name.slice(0, n)}…`).width > width) n--;
  return `${name.slice(0, n)}…`;
}

/**
 * Columns by depth (a vertex sits one column right of its deepest input), each column ordered by
 * where its inputs sit, to keep arrows from crossing.
 * @param {readonly Vertex[]} vertices
 */
function layout(vertices) {
  /** @type {Map<string, number>} */
  const depth = new Map();
  /** @param {Vertex} v @param {Set<string>} seen @returns {number} */
  const depthOf = (v, seen) => {
    const known = depth.get(v.id);
    if (known !== undefined) return known;
    if (seen.has(v.id)) return 0;
    seen.add(v.id);
    let d = 0;
    for (const i of v.inputs) {
      const u = vertices.find((x) => x.id === i.id);
      if (u) d = Math.max(d, depthOf(u, seen) + 1);
    }
    depth.set(v.id, d);
    return d;
  };
  for (const v of vertices) depthOf(v, new Set());
  /** @type {Vertex[][]} */
  const columns = [];
  for (const v of vertices) (columns[depth.get(v.id) ?? 0] ??= []).push(v);
  /** @type {Map<string, number>} */
  const row = new Map();
  for (const col of columns) {
    if (!col) continue;
    const centre = (/** @type {Vertex} */ v) => {
      const rs = v.inputs.map((i) => row.get(i.id)).filter((r) => r !== undefined);
      return rs.length ? rs.reduce((a, b) => a + b, 0) / rs.length : 0;
    };
    col.sort((a, b) => centre(a) - centre(b));
    col.forEach((v, i) => row.set(v.id, i));
  }
  const tallest = Math.max(1, ...columns.map((c) => c?.length ?? 0));
  const height = PAD * 2 + tallest * H + (tallest - 1) * GAP_Y;
  /** @type {Map<string, { x: number, y: number }>} */
  const at = new Map();
  columns.forEach((col, c) => {
    if (!col) return;
    const used = col.length * H + (col.length - 1) * GAP_Y;
    const top = (height - used) / 2;
    col.forEach((v, i) => at.set(v.id, { x: PAD + c * (W + GAP_X), y: top + i * (H + GAP_Y) }));
  });
  const width = PAD * 2 + columns.length * W + Math.max(0, columns.length - 1) * GAP_X;
  return { at, width, height };
}

/**
 * @param {readonly Vertex[]} vertices
 * @param {string | null} selected the selected vertex's id
 */
export function jobGraph(vertices, selected) {
  const { at, width, height } = layout(vertices);
  /** How many arrows leave each vertex, and which one is next (to spread them over the box's side). */
  const outs = new Map(vertices.map((v) => [v.id, vertices.filter((t) => t.inputs.some((i) => i.id === v.id)).length]));
  const outIndex = new Map();
  /** @type {SVGElement[]} */
  const edges = [];
  for (const v of vertices) {
    v.inputs.forEach((input, k) => {
      const from = at.get(input.id);
      const to = at.get(v.id);
      if (!from || !to) return;
      const n = outIndex.get(input.id) ?? 0;
      outIndex.set(input.id, n + 1);
      const x1 = from.x + W;
      const y1 = from.y + (H * (n + 1)) / ((outs.get(input.id) ?? 1) + 1);
      const x2 = to.x - 2;
      const y2 = to.y + (H * (k + 1)) / (v.inputs.length + 1);
      const mx = (x1 + x2) / 2;
      edges.push(
        s(
          'g',
          { class: 'edge', 'data-key': `${input.id}>${v.id}` },
          s('path', { d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`, 'marker-end': 'url(#arrow)' }),
          s('text', { x: mx, y: (y1 + y2) / 2 - 6, 'text-anchor': 'middle', class: 'edge-label' }, input.ship_strategy),
        ),
      );
    });
  }
  const boxes = vertices.map((v) => {
    const p = at.get(v.id) ?? { x: 0, y: 0 };
    const load = vertexLoad(v);
    const { fill, stroke } = loadColours(load);
    const running = v.subtasks.filter((t) => t.status === 'running').length;
    const state = running === v.subtasks.length ? 'running' : `${running}/${v.subtasks.length} running`;
    const loadText = load.kind === 'unknown' ? 'Busy – · Backpressured –' : `Busy ${percent(load.busy)} · Backpressured ${percent(load.backpressured)}`;
    return s(
      'g',
      {
        class: `vertex load-${load.kind}${selected === v.id ? ' selected' : ''}`,
        'data-key': v.id,
        'data-action': 'select-vertex',
        'data-vertex': v.id,
        transform: `translate(${p.x},${p.y})`,
        role: 'button',
        tabindex: 0,
      },
      s('title', null, `${v.name}\nbusy ${percent(load.busy)}, backpressured ${percent(load.backpressured)}, idle ${percent(load.idle)} (its busiest subtask, last 5 s)\nclick for its subtasks`),
      s('rect', { width: W, height: H, rx: 8, fill, stroke }),
      s('rect', { class: 'stripe', width: 6, height: H, rx: 3, fill: stroke }),
      s('text', { x: 16, y: 22, class: 'vertex-name' }, fitName(v.name, W - 16 - 10)),
      s('text', { x: 16, y: 42, class: 'vertex-line' }, `Parallelism ${v.parallelism} · ${state}`),
      s('text', { x: 16, y: 61, class: 'vertex-line' }, `In ${count(v.metrics['read-records'])} · Out ${count(v.metrics['write-records'])}`),
      s('text', { x: 16, y: 80, class: 'vertex-line vertex-load' }, loadText),
    );
  });
  return s(
    'svg',
    { class: 'job-graph', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': 'job graph' },
    s('defs', null, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, s('path', { d: 'M0,0 L10,5 L0,10 z' }))),
    ...edges,
    ...boxes,
  );
}
