/**
 * Reads that do not slow with history (issue 30 item 3): the p50 of each read with one kept sync of the Go standard
 * library and with N kept syncs (default 50), in one run. Uses bench/resync.ts's source (its id in
 * .stack/bench-resync.json; run `bench/resync.ts --corpus go --syncs 1` first), whose `config.retention.keep_completed`
 * is raised so the stack's retention schedule keeps the history.
 *
 *   node --import tsx bench/history.ts [--syncs 50] [--reps 21] [--no-reset] [--change]
 *   node --import tsx bench/history.ts --build [--syncs 50] [--change] [--minutes 12]   # resumable, in chunks
 *   node --import tsx bench/history.ts --purge-to-one [--reps 21]                       # after --build
 *   node --import tsx bench/history.ts --purge | --measure-one | --measure-history     # the same, in runs apart
 *
 * --measure-one runs with one or two kept syncs: the diff is measured only with two (see measure()).
 *
 * History: re-syncs of the unchanged commit share their predecessor's graph (V50) and add no graph rows, so they are
 * not the history that can slow a read; with --change each re-sync follows a one-file commit (the soak's hourly
 * schedule) and writes a whole sync's per-sync rows (sync_files, File/Symbol vertices, edges).
 *
 * Default: phase 1 purges every sync of the source but its newest (unless --no-reset), then VACUUM (ANALYZE) as
 * retention's last step does; each read is timed `reps` times after two warm-up calls (client side, body read). Phase
 * 2 re-syncs until N completed syncs are kept and times the same reads at once (no maintenance between: what a user
 * meets right after the syncs), then again after VACUUM (ANALYZE). Ratios are phase / phase 1 per read.
 *
 * Building 50 whole Go syncs takes longer than one CPU slot of this machine may be held, so it can be split: --build
 * re-syncs until N are kept or `--minutes` have passed (run it again to go on); --purge-to-one then times the reads
 * with the kept history (right after, and after VACUUM (ANALYZE)), purges every sync but the newest, vacuums and
 * times them with one sync: the same run gives the ratios (the baseline is measured last instead of first).
 * Purging 50 whole Go syncs takes longer than a quiet slot should be held, so the steps also run apart, in either
 * order: --purge (purge to one, vacuum, and what the purges left behind), --measure-one (one kept sync) and
 * --measure-history (the kept history): each keeps its figures in .stack/bench-history.json and prints the ratios
 * once both are there (e.g. --purge and --measure-one first, then --build rounds, then --measure-history).
 */
import { appendFileSync, existsSync, readFileSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api, root, stackPool, syncThroughGateway } from './support/gateway.ts';
import { leftBehind, nonZero } from './support/left-behind.ts';
import { purgeAllButOne } from './support/purge.ts';
import { CHANGED_FILE, git } from './support/corpus.ts';
import type { Sync as SyncJson } from '../lib/api/schemas.ts';

const { values: args } = parseArgs({
  options: {
    syncs: { type: 'string', default: '50' },
    reps: { type: 'string', default: '21' },
    'no-reset': { type: 'boolean', default: false },
    change: { type: 'boolean', default: false },
    build: { type: 'boolean', default: false },
    minutes: { type: 'string', default: '12' },
    'purge-to-one': { type: 'boolean', default: false },
    'measure-history': { type: 'boolean', default: false },
    purge: { type: 'boolean', default: false },
    'measure-one': { type: 'boolean', default: false },
    'min-free-gb': { type: 'string', default: '8' },
  },
});
const target = Number(args.syncs);
const reps = Number(args.reps);
const pool = stackPool();
const statePath = join(root, '.stack/bench-resync.json');
if (!existsSync(statePath)) throw new Error('run bench/resync.ts --corpus go --syncs 1 first');
const goSource = (JSON.parse(readFileSync(statePath, 'utf8')) as Record<string, string | undefined>).go;
if (!goSource) throw new Error('no go source in .stack/bench-resync.json');
const sourceId: string = goSource;

async function completedSyncs(): Promise<SyncJson[]> {
  const page = await api<{ items: SyncJson[] }>('GET', `/api/syncs?source_id=${sourceId}&limit=200`);
  return page.items.filter((s) => s.status === 'completed');
}

async function vacuum(): Promise<void> {
  const labels = await pool.query<{ name: string }>(
    `SELECT l.name FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph
      WHERE g.name = 'service' AND l.name NOT IN ('_ag_label_vertex', '_ag_label_edge')`,
  );
  for (const t of [...labels.rows.map((r) => `service."${r.name}"`), 'sync_runs', 'sync_files', 'file_contents']) {
    await pool.query(`VACUUM (ANALYZE) ${t}`);
  }
}

const enc = encodeURIComponent;
function reads(newest: string, previous: string): Array<[string, string]> {
  const node = enc(`src_${sourceId}:strings/strings.go`);
  return [
    [
      'chunk search (lexical)',
      `/api/graph/search/chunks?q=${enc('read all bytes from a reader')}&mode=lexical&source_id=${sourceId}`,
    ],
    [
      'chunk search (hybrid)',
      `/api/graph/search/chunks?q=${enc('parse an http request header')}&source_id=${sourceId}`,
    ],
    ['symbol search', `/api/graph/search/symbols?q=ReadAll&source_id=${sourceId}`],
    ['merged graph', `/api/graph?sync_ids=${newest}`],
    ['node detail', `/api/graph/nodes/${node}`],
    ['file', `/api/graph/nodes/${node}/file`],
    ['impact', `/api/graph/impact?node_id=${enc(`src_${sourceId}:io/io.go`)}&depth=3`],
    ['diff', `/api/graph/diff?from=${previous}&to=${newest}`],
  ];
}

async function time(path: string): Promise<number> {
  const t = performance.now();
  await api('GET', path);
  return performance.now() - t;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

/**
 * The p50 of each read. The diff compares the newest sync with the one before it (a one-file change with --change):
 * with a single kept sync there is no such pair, and a sync diffed against itself is cheaper (nothing differs), so
 * the diff is left out then; the fair baseline is --measure-one with two kept syncs (the soak's first round leaves
 * two), where every other read still reads only the newest sync.
 */
async function measure(label: string): Promise<Map<string, number>> {
  const syncs = await completedSyncs();
  const newest = syncs[0]!.id;
  const previous = syncs[1]?.id;
  const out = new Map<string, number>();
  const load = (await import('node:os')).loadavg()[0]!.toFixed(2);
  console.log(`\n${label}: ${syncs.length} completed syncs kept, load ${load}`);
  for (const [name, path] of reads(newest, previous ?? newest)) {
    if (name === 'diff' && previous === undefined) {
      console.log(`  ${name.padEnd(24)} not measured: one kept sync (a diff needs two)`);
      continue;
    }
    await time(path);
    await time(path);
    const xs: number[] = [];
    for (let i = 0; i < reps; i++) xs.push(await time(path));
    out.set(name, pct(xs, 0.5));
    console.log(`  ${name.padEnd(24)} p50 ${pct(xs, 0.5).toFixed(1)} ms, p95 ${pct(xs, 0.95).toFixed(1)} ms`);
  }
  return out;
}

async function dbSize(): Promise<string> {
  const r = await pool.query<{ s: string }>(`SELECT pg_size_pretty(pg_database_size(current_database())) AS s`);
  return r.rows[0]!.s;
}

/** Purges every sync but the newest, vacuums, and says what the purges left behind (every figure must be 0). */
async function purgeAndVacuum(): Promise<void> {
  const before = (await completedSyncs()).length;
  const t = performance.now();
  await purgeAllButOne(pool, sourceId);
  await vacuum();
  console.log(
    `purged from ${before} completed syncs to one and vacuumed in ${((performance.now() - t) / 1000).toFixed(0)} s, ` +
      `database ${await dbSize()}`,
  );
  const left = await leftBehind(pool);
  console.log(
    `left behind by the purges: ${Object.keys(nonZero(left)).length === 0 ? `nothing (${Object.keys(left).length} tables and labels checked)` : JSON.stringify(nonZero(left))}`,
  );
}

const historyPath = join(root, '.stack/bench-history.json');
const repo = args.change ? (await api<{ url: string }>('GET', `/api/sources/${sourceId}`)).url : null;
/** Re-syncs until `target` completed syncs are kept or `until` (ms since the epoch) has passed. */
async function build(until = Infinity): Promise<number[]> {
  let syncs = await completedSyncs();
  const times: number[] = [];
  // A whole Go sync is ~280 MB of rows: the build stops before the machine's disk (shared with other stacks) fills.
  const freeGb = () => {
    const f = statfsSync(root);
    return (f.bavail * f.bsize) / 1024 ** 3;
  };
  while (syncs.length < target && Date.now() < until) {
    if (freeGb() < Number(args['min-free-gb'])) {
      console.log(`  stopped: ${freeGb().toFixed(1)} GB free on the disk (--min-free-gb ${args['min-free-gb']})`);
      break;
    }
    if (repo) {
      appendFileSync(join(repo, CHANGED_FILE.go), `\n// history ${syncs.length + 1} ${Date.now()}\n`);
      git(repo, 'commit', '-q', '-am', 'one file changed');
    }
    const { ms } = await syncThroughGateway(sourceId);
    times.push(ms);
    syncs = await completedSyncs();
    if (syncs.length % 10 === 0 || syncs.length === target)
      console.log(`  ${syncs.length} syncs kept, last re-sync ${(ms / 1000).toFixed(2)} s, database ${await dbSize()}`);
  }
  if (times.length > 0) {
    console.log(
      `re-syncs: ${times.length}, median ${(pct(times, 0.5) / 1000).toFixed(2)} s, p95 ${(pct(times, 0.95) / 1000).toFixed(2)} s`,
    );
  }
  return times;
}

function ratios(base: Map<string, number>, phases: Array<[string, Map<string, number>]>): void {
  console.log(`\nratio to one sync (target <= 1.3):`);
  for (const [name, b] of base) {
    console.log(
      `  ${name.padEnd(24)} ${phases.map(([label, m]) => `${(m.get(name)! / b).toFixed(2)} ${label}`).join(', ')}`,
    );
  }
}

// The precise tier is off for the history's syncs: it measures reads, and on the Go standard library the tier's
// TypeScript run over its few JavaScript files fails, which adds ~20 s to every sync (and keeps an unchanged re-sync
// from sharing its predecessor's graph: a failed language is tried again). The measurements alone change nothing of
// the source (--measure-one can then run on the soak's source, whose retention is the default).
if (!args['measure-one'] && !args['measure-history']) {
  await api('PATCH', `/api/sources/${sourceId}`, {
    config: { retention: { keep_completed: Math.max(100, target + 10) }, precise: false },
  });
}
if ((await completedSyncs()).length === 0)
  throw new Error('the source has no completed sync: run bench/resync.ts first');
if (args.build) {
  await build(Date.now() + Number(args.minutes) * 60_000);
  console.log(`database ${await dbSize()}, ${(await completedSyncs()).length} completed syncs kept`);
} else if (args['measure-history'] || args['measure-one']) {
  const phase = args['measure-one'] ? 'one' : 'history';
  const kept = (await completedSyncs()).length;
  if (phase === 'one' && kept > 2) throw new Error(`--measure-one: ${kept} completed syncs kept (run --purge first)`);
  console.log(`database ${await dbSize()}`);
  const figures = await measure(phase === 'one' ? 'one sync' : 'history, as built');
  const saved = (existsSync(historyPath) ? JSON.parse(readFileSync(historyPath, 'utf8')) : {}) as Partial<
    Record<'one' | 'history', { at: string; kept: number; reads: Record<string, number> }>
  >;
  saved[phase] = { at: new Date().toISOString(), kept, reads: Object.fromEntries(figures) };
  writeFileSync(historyPath, JSON.stringify(saved, null, 1));
  if (saved.one && saved.history) {
    console.log(`(one sync measured ${saved.one.at}, ${saved.history.kept} kept syncs measured ${saved.history.at})`);
    ratios(new Map(Object.entries(saved.one.reads)), [
      [`with ${saved.history.kept} syncs`, new Map(Object.entries(saved.history.reads))],
    ]);
  }
} else if (args.purge) {
  await purgeAndVacuum();
} else if (args['purge-to-one']) {
  console.log(`database ${await dbSize()}`);
  const many = await measure('history, as built');
  await vacuum();
  const vacuumed = await measure('history, after VACUUM (ANALYZE)');
  await purgeAndVacuum();
  const one = await measure('one sync');
  ratios(one, [
    ['as built', many],
    ['vacuumed', vacuumed],
  ]);
} else {
  if (!args['no-reset']) {
    await purgeAllButOne(pool, sourceId);
    await vacuum();
  }
  console.log(`database ${await dbSize()}`);
  const one = await measure('one sync');
  await build();
  console.log(`database ${await dbSize()}`);
  const many = await measure(`${target} syncs, right after the syncs`);
  await vacuum();
  const vacuumed = await measure(`${target} syncs, after VACUUM (ANALYZE)`);
  ratios(one, [
    ['right after', many],
    ['vacuumed', vacuumed],
  ]);
}
await pool.end();
