// @ts-check
// Consumer lag of the sources whose readers report it per partition (Kafka: `consumerLag.<topic>-
// <partition>` among a subtask's `source` figures, the records between the reader's position and
// the partition's high watermark as of its last fetch): one card per such source vertex, with the
// total and a row per partition naming the subtask that reads it, largest lag first.
import { h } from '../dom.js';
import { count } from '../format.js';
/** @import { JobDetailsView, VertexView } from '../../src/rest/rest-views.ts' */

const PREFIX = 'consumerLag.';

/**
 * @param {JobDetailsView} job
 * @returns {HTMLElement[]}
 */
export function consumerLagCards(job) {
  return job.vertices.flatMap((v) => {
    const rows = partitionLags(v);
    return rows.length ? [consumerLagCard(v, rows)] : [];
  });
}

/** @typedef {{ partition: string, subtask: number, lag: number }} PartitionLag */

/** @param {VertexView} v @returns {PartitionLag[]} */
function partitionLags(v) {
  /** @type {PartitionLag[]} */
  const rows = [];
  for (const t of v.subtasks) {
    for (const [key, lag] of Object.entries(t.source ?? {})) {
      if (key.startsWith(PREFIX) && typeof lag === 'number') rows.push({ partition: key.slice(PREFIX.length), subtask: t.subtask, lag });
    }
  }
  // Largest lag first (the partitions to look at), then by topic and partition number.
  return rows.sort((a, b) => b.lag - a.lag || byPartition(a.partition, b.partition));
}

/** `topic-12` after `topic-2`. @param {string} a @param {string} b */
function byPartition(a, b) {
  const split = (/** @type {string} */ s) => {
    const at = s.lastIndexOf('-');
    return /** @type {const} */ ([s.slice(0, at), Number(s.slice(at + 1))]);
  };
  const [ta, pa] = split(a);
  const [tb, pb] = split(b);
  return ta < tb ? -1 : ta > tb ? 1 : pa - pb;
}

/** @param {VertexView} v @param {PartitionLag[]} rows */
function consumerLagCard(v, rows) {
  const total = rows.reduce((n, r) => n + r.lag, 0);
  const max = Math.max(1, ...rows.map((r) => r.lag));
  return h(
    'section',
    { class: 'card consumer-lag', 'data-key': `lag:${v.id}`, 'data-vertex': v.id, 'aria-label': `Consumer lag of ${v.name}` },
    h('h2', null, `Consumer lag of ${v.name}`),
    h('p', { class: 'lag-total' }, h('span', { 'data-figure': 'total' }, count(total)), ` ${total === 1 ? 'record' : 'records'} behind over ${count(rows.length)} ${rows.length === 1 ? 'partition' : 'partitions'}`),
    h(
      'table',
      { class: 'table consumer-lag-partitions', 'aria-label': `Consumer lag per partition of ${v.name}` },
      h('thead', null, h('tr', null, h('th', null, 'Partition'), h('th', null, 'Subtask'), h('th', { class: 'num', title: "records between the reader's position and the partition's high watermark, as of its last fetch" }, 'Lag'), h('th', null, ''))),
      h(
        'tbody',
        null,
        rows.map((r) =>
          h(
            'tr',
            { 'data-key': `partition:${r.partition}`, 'data-partition': r.partition },
            h('td', null, r.partition),
            h('td', null, `${r.subtask + 1}/${v.parallelism}`),
            h('td', { class: 'num', 'data-figure': 'lag' }, count(r.lag)),
            h('td', null, h('progress', { class: 'lag-bar', max, value: r.lag, 'aria-hidden': 'true' })),
          ),
        ),
      ),
    ),
  );
}
