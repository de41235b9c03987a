// Summarizes V8 CPU profiles (node --cpu-prof): the functions with the most self time and the
// most total time.
//
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/main.ts wordcount --only p1 --runs 3
//   node --import tsx bench/profile-summary.ts /tmp/prof [--top 30] [--filter src/]
//
// A directory argument takes every .cpuprofile in it (worker threads write one each).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

function frameName(n: ProfileNode): string {
  const f = n.callFrame;
  const url = f.url.replace(/^file:\/\//, '');
  const where = url ? `${relative(process.cwd(), url)}:${f.lineNumber + 1}` : '';
  return `${f.functionName || "(anonymous)"}${where ? ` ${where}:${f.columnNumber + 1}` : ""}`;
}

function summarize(path: string, top: number, filter: string | undefined): void {
  const p = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  let idle = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(p.samples[i]!)!;
    all += dt;
    const name = frameName(node);
    if (node.callFrame.functionName === '(idle)') idle += dt;
    self.set(name, (self.get(name) ?? 0) + dt);
    // Total time: every distinct function on the stack, once per sample (recursion counted once).
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const fn = frameName(byId.get(id)!);
      if (seen.has(fn)) continue;
      seen.add(fn);
      total.set(fn, (total.get(fn) ?? 0) + dt);
    }
  }
  const busy = all - idle;
  const show = (title: string, m: Map<string, number>) => {
    console.log(`\n  ${title}`);
    const rows = [...m].filter(([n]) => !filter || n.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, top);
    for (const [name, ms] of rows) console.log(`  ${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${name}`);
  };
  console.log(`\n${path}: ${all.toFixed(0)} ms sampled, ${idle.toFixed(0)} ms idle (percentages are of the ${busy.toFixed(0)} ms busy)`);
  show('self time', self);
  show('total time', total);
}

const argv = process.argv.slice(2);
const topAt = argv.indexOf('--top');
const top = topAt >= 0 ? Number(argv.splice(topAt, 2)[1]) : 25;
const filterAt = argv.indexOf('--filter');
const filter = filterAt >= 0 ? argv.splice(filterAt, 2)[1] : undefined;
if (argv.length === 0) {
  console.error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile | dir>... [--top N] [--filter TEXT]');
  process.exit(2);
}
for (const arg of argv) {
  const files = statSync(arg).isDirectory()
    ? readdirSync(arg)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(arg, f))
    : [arg];
  for (const f of files) summarize(f, top, filter);
}
