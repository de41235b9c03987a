// @ts-check
// The Watermarks card of a job's overview (event time): each vertex's watermark, the minimum over
// its subtasks, which subtask holds it back (the one at that minimum while others are ahead),
// how far event time is behind the wall clock, and the late records its windows dropped.
import { h } from '../dom.js';
import { count, dateTime, duration } from '../format.js';
/** @import { JobDetailsView, SubtaskView } from '../../src/rest/rest-views.ts' */

/** A watermark as the dashboard writes it. @param {SubtaskView['watermark']} wm */
export function watermarkText(wm) {
  if (wm === null) return 'none yet';
  if (wm === 'end') return 'end of input';
  return `${dateTime(wm)}.${String(Math.floor(wm) % 1000).padStart(3, '0')}`;
}

/** The lower of two watermarks (null: none yet, the lowest; 'end': the highest). @param {SubtaskView['watermark']} a @param {SubtaskView['watermark']} b */
function lower(a, b) {
  if (a === null || b === null) return null;
  if (a === 'end') return b;
  if (b === 'end') return a;
  return Math.min(a, b);
}

/** The card, or null for a job without event time (no subtask has a watermark and none dropped records). @param {JobDetailsView} job */
export function watermarksCard(job) {
  const anyWatermark = job.vertices.some((v) => v.subtasks.some((t) => t.watermark !== null || t.lateRecordsDropped > 0));
  if (!anyWatermark) return null;
  const heads = ['Vertex', 'Watermark', 'Behind wall clock', 'Held back by', 'Late records dropped'];
  return h(
    'section',
    { class: 'card watermarks-card' },
    h('h2', null, 'Watermarks'),
    h(
      'table',
      { class: 'table watermarks' },
      h('thead', null, h('tr', null, ...heads.map((t, i) => h('th', { class: i === 2 || i === 4 ? 'num' : null }, t)))),
      h(
        'tbody',
        null,
        job.vertices.map((v) => {
          const min = v.subtasks.reduce(/** @param {SubtaskView['watermark']} m */ (m, t) => lower(m, t.watermark), /** @type {SubtaskView['watermark']} */ ('end'));
          const ahead = v.subtasks.some((t) => t.watermark !== min);
          const holding = ahead ? v.subtasks.filter((t) => t.watermark === min).map((t) => `subtask ${t.subtask + 1}/${v.parallelism}`) : [];
          const dropped = v.subtasks.reduce((n, t) => n + t.lateRecordsDropped, 0);
          return h(
            'tr',
            { 'data-key': v.id, class: holding.length > 0 ? 'held-back' : null },
            h('td', null, v.name),
            h('td', null, watermarkText(min)),
            h('td', { class: 'num' }, typeof min === 'number' ? duration(job.now - min) : '–'),
            h('td', null, holding.length > 0 ? holding.join(', ') : v.parallelism > 1 ? 'none (all at the same watermark)' : '–'),
            h('td', { class: 'num' }, count(dropped)),
          );
        }),
      ),
    ),
    h('p', { class: 'muted' }, "A subtask's watermark is the minimum over its inputs that are not idle; a source's is its own. A vertex's is its lowest subtask's: that one holds the windows downstream back."),
  );
}
