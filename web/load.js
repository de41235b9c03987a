// @ts-check
// Where a vertex's time goes, as Flink's web UI shows it since 1.13: a box is red as far as its
// busiest subtask is busy (blue when idle), and grey when it is more backpressured than busy. So
// the bottleneck, not its victims upstream, is the red box.
/** @import { SubtaskView, VertexView } from '../src/rest/rest-views.ts' */

/**
 * @typedef {{ busy: number, backpressured: number, idle: number, kind: 'busy' | 'backpressured' | 'idle' | 'unknown' }} Load
 */

/** @param {SubtaskView} t @returns {boolean} */
const measured = (t) => t.status === 'running' && t.busyTimeMsPerSecond + t.idleTimeMsPerSecond + t.backPressuredTimeMsPerSecond > 0;

/** A subtask's shares of its time, 0..1. @param {SubtaskView} t @returns {Load} */
export function subtaskLoad(t) {
  if (!measured(t)) return { busy: 0, backpressured: 0, idle: 0, kind: 'unknown' };
  return classify(t.busyTimeMsPerSecond / 1000, t.backPressuredTimeMsPerSecond / 1000, t.idleTimeMsPerSecond / 1000);
}

/** The vertex's: its busiest and its most backpressured subtask (Flink takes the maximum over subtasks). @param {VertexView} v @returns {Load} */
export function vertexLoad(v) {
  const ts = v.subtasks.filter(measured);
  if (ts.length === 0) return { busy: 0, backpressured: 0, idle: 0, kind: 'unknown' };
  const max = (/** @type {(t: SubtaskView) => number} */ f) => Math.max(...ts.map(f)) / 1000;
  return classify(max((t) => t.busyTimeMsPerSecond), max((t) => t.backPressuredTimeMsPerSecond), max((t) => t.idleTimeMsPerSecond));
}

/** @param {number} busy @param {number} backpressured @param {number} idle @returns {Load} */
function classify(busy, backpressured, idle) {
  const kind = backpressured > busy && backpressured >= idle ? 'backpressured' : busy >= idle ? 'busy' : 'idle';
  return { busy, backpressured, idle, kind };
}

/** The box's fill and outline. @param {Load} load @returns {{ fill: string, stroke: string }} */
export function loadColours(load) {
  if (load.kind === 'unknown') return { fill: '#f1f3f4', stroke: '#b4b9bf' };
  if (load.kind === 'backpressured') {
    const l = 94 - 40 * load.backpressured;
    return { fill: `hsl(0, 0%, ${l.toFixed(0)}%)`, stroke: 'hsl(0, 0%, 35%)' };
  }
  // From blue (idle) to red (busy), as Flink's, by way of purple (not green, which reads as fine).
  const hue = (210 + 150 * load.busy) % 360;
  return { fill: `hsl(${hue.toFixed(0)}, 85%, ${(93 - 18 * load.busy).toFixed(0)}%)`, stroke: `hsl(${hue.toFixed(0)}, 70%, 40%)` };
}
