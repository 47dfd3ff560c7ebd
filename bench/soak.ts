/**
 * Soak (issue 30 item 6): N re-syncs of the Go standard library, each after a one-file commit (an hourly schedule's
 * days), with the default retention window (keep 10 completed), retention run after every sync. Prints per sync:
 * its time, the database size, the kept syncs, and the p50 of a few reads; at the end the targets: database size
 * against its size when the window first filled (<= 1.2x), re-sync p95 against the median (<= 2x), the reads' last
 * figures against their first, and what purges left behind (rows in any table or label naming a sync that no longer
 * exists: must be 0).
 *
 *   node --import tsx bench/soak.ts [--syncs 100] [--purge-after 60] [--reps 5] [--minutes M] [--resume]
 *   node --import tsx bench/soak.ts --report | --unchanged
 *
 * A soak of 100 Go re-syncs is longer than one CPU slot of this machine may be held: --minutes M stops after the sync
 * in progress once M minutes have passed, keeping every row so far in .stack/bench-soak.json; --resume goes on from
 * there (no purge, the same source and counts) until --syncs are done, and the summary covers every round.
 * --unchanged (no round): one re-sync of the commit last synced, and what it added (issue 30's storage per unchanged
 * re-sync, <= 15 MB): the database's growth and the new sync's own rows per table and label (support/sync-rows.ts).
 *
 * Uses bench/resync.ts's Go source (.stack/bench-resync.json); its `config.retention` is removed so the defaults apply,
 * and every sync of it but the newest is purged first, so the window fills during the soak.
 * Retention runs as the schedule's workflow does (retentionWorkflow on the sync task queue), started by the bench
 * after each sync with the service defaults except `purgeAfterSeconds` (default 60 here instead of 3600, so purges
 * happen within the soak; say so with the figures).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DEFAULT_KEEP_COMPLETED, DEFAULT_KEEP_FAILED, type RetentionInput } from '../lib/retention.ts';
import { RETENTION_WORKFLOW_TYPE, type RetentionResult } from '../workflows/retention-contract.ts';
import { CHANGED_FILE, git } from './support/corpus.ts';
import { api, env, root, stackPool, syncThroughGateway } from './support/gateway.ts';
import { leftBehind } from './support/left-behind.ts';
import { purgeAllButOne } from './support/purge.ts';
import { syncRows } from './support/sync-rows.ts';

const { values: args } = parseArgs({
  options: {
    syncs: { type: 'string', default: '100' },
    'purge-after': { type: 'string', default: '60' },
    reps: { type: 'string', default: '5' },
    minutes: { type: 'string', default: '0' },
    resume: { type: 'boolean', default: false },
    report: { type: 'boolean', default: false },
    unchanged: { type: 'boolean', default: false },
  },
});
const total = Number(args.syncs);
const reps = Number(args.reps);
const pool = stackPool();
const state = JSON.parse(readFileSync(join(root, '.stack/bench-resync.json'), 'utf8')) as Record<string, string>;
const sourceId = state.go;
if (!sourceId) throw new Error('run bench/resync.ts --corpus go --syncs 1 first');
const source = await api<{ url: string }>('GET', `/api/sources/${sourceId}`);
if (!existsSync(source.url)) throw new Error(`the source's repository ${source.url} is gone: register it again`);
const statePath = join(root, '.stack/bench-soak.json');
interface SoakState {
  rows: Array<Record<string, unknown> & { reads: Record<string, number> }>;
  times: number[];
  filledAt?: number;
}
// --report: no sync, the summary over the rounds kept so far (a soak stopped before --syncs, or to read it again).
if (args.report || args.unchanged) args.resume = true;
const soak: SoakState =
  args.resume && existsSync(statePath)
    ? (JSON.parse(readFileSync(statePath, 'utf8')) as SoakState)
    : { rows: [], times: [] };
const deadline =
  args.report || args.unchanged ? 0 : Number(args.minutes) > 0 ? Date.now() + Number(args.minutes) * 60_000 : Infinity;
// Start from one kept sync (the window then fills during the soak): every other sync of the source is purged first.
if (!args.resume) {
  // The default retention (no config.retention); the precise tier off as in bench/history.ts (its TypeScript run
  // fails on the corpus's few JavaScript files and adds ~20 s to every sync: issue 29's figure, not this one's).
  await api('PATCH', `/api/sources/${sourceId}`, { config: { precise: false } });
  const purged = await purgeAllButOne(pool, sourceId);
  if (purged > 0) console.log(`purged ${purged} earlier syncs of the source`);
}

const connection = await Connection.connect({ address: env('TEMPORAL_ADDRESS', '127.0.0.1:7233') });
const client = new Client({ connection, namespace: env('TEMPORAL_NAMESPACE', 'default') });
const input: RetentionInput = {
  keepCompleted: DEFAULT_KEEP_COMPLETED,
  keepFailed: DEFAULT_KEEP_FAILED,
  purgeAfterSeconds: Number(args['purge-after']),
  eventMaxAgeHours: 168,
  maxSyncsPerRun: 100,
};

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const enc = encodeURIComponent;
const node = enc(`src_${sourceId}:strings/strings.go`);
const READS: Array<[string, () => string]> = [
  [
    'chunks',
    () => `/api/graph/search/chunks?q=${enc('read all bytes from a reader')}&mode=lexical&source_id=${sourceId}`,
  ],
  ['symbols', () => `/api/graph/search/symbols?q=ReadAll&source_id=${sourceId}`],
  ['node', () => `/api/graph/nodes/${node}`],
  ['file', () => `/api/graph/nodes/${node}/file`],
  ['impact', () => `/api/graph/impact?node_id=${enc(`src_${sourceId}:io/io.go`)}&depth=3`],
  ['diff', () => `/api/graph/diff?source_id=${sourceId}`],
];

async function readP50s(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, path] of READS) {
    const xs: number[] = [];
    for (let i = 0; i < reps + 1; i++) {
      const t = performance.now();
      // A read that fails (a 504 after GRAPH_QUERY_TIMEOUT_SECONDS) is reported and timed as it is, not fatal.
      await api('GET', path()).catch((err: unknown) => console.log(`  ${name}: ${String(err).slice(0, 160)}`));
      if (i > 0)
        xs.push(performance.now() - t); // the first is the sync's first read: kept apart below
      else out[`${name}_first`] = performance.now() - t;
    }
    out[name] = pct(xs, 0.5);
  }
  return out;
}

async function dbBytes(): Promise<number> {
  const r = await pool.query<{ n: string }>(`SELECT pg_database_size(current_database())::text AS n`);
  return Number(r.rows[0]!.n);
}

async function keptSyncs(): Promise<Record<string, number>> {
  const r = await pool.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM sync_runs WHERE source_id = $1 GROUP BY 1`,
    [sourceId],
  );
  return Object.fromEntries(r.rows.map((x) => [x.status, x.n]));
}

const mb = (b: number) => (b / 1048576).toFixed(0);
const { rows, times } = soak;
console.log(
  `soak: ${total} re-syncs after one-file commits, keep ${input.keepCompleted}, purge after ${input.purgeAfterSeconds} s` +
    (rows.length > 0 ? `; resuming after ${rows.length}` : ''),
);
for (let i = rows.length + 1; i <= total && Date.now() < deadline; i++) {
  git(source.url, 'checkout', '-q', 'main');
  const file = join(source.url, CHANGED_FILE.go);
  writeFileSync(file, readFileSync(file, 'utf8') + `\n// soak ${i} ${Date.now()}\n`);
  git(source.url, 'commit', '-q', '-am', `soak ${i}`);
  const { ms } = await syncThroughGateway(sourceId);
  times.push(ms);
  const t = performance.now();
  const ret = await client.workflow.execute<(i: RetentionInput) => Promise<RetentionResult>>(RETENTION_WORKFLOW_TYPE, {
    taskQueue: env('TEMPORAL_TASK_QUEUE', 'ckg-sync'),
    workflowId: `soak-retention-${Date.now()}`,
    args: [input],
  });
  const retentionMs = performance.now() - t;
  const kept = await keptSyncs();
  const size = await dbBytes();
  const reads = await readP50s();
  if (soak.filledAt === undefined && (kept.completed ?? 0) >= input.keepCompleted) soak.filledAt = size;
  const row = {
    i,
    sync_ms: Math.round(ms),
    retention_ms: Math.round(retentionMs),
    db_bytes: size,
    kept,
    ret,
    reads,
    load: loadavg()[0]!.toFixed(2),
  };
  rows.push(row);
  writeFileSync(statePath, JSON.stringify(soak, null, 1));
  console.log(
    `${String(i).padStart(3)} sync ${(ms / 1000).toFixed(2)} s, retention ${(retentionMs / 1000).toFixed(2)} s ` +
      `(cleaned ${ret.cleaned}, purged ${ret.purged}), db ${mb(size)} MB, kept ${JSON.stringify(kept)}, ` +
      `reads p50 ${Object.entries(reads)
        .filter(([k]) => !k.endsWith('_first'))
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(' ')} ms, ` +
      `first diff ${reads.diff_first!.toFixed(0)} ms, load ${row.load}`,
  );
}
if (args.unchanged) {
  const before = await dbBytes();
  const { ms, run } = await syncThroughGateway(sourceId);
  const grown = (await dbBytes()) - before;
  const own = await syncRows(pool, run.id);
  const mib = (b: number) => (b / 1048576).toFixed(2);
  console.log(
    `unchanged re-sync ${(ms / 1000).toFixed(2)} s, ${run.status}: database ${mib(grown)} MB more, its own rows ` +
      `${mib(own.reduce((a, r) => a + r.bytes, 0))} MB (target <= 15 MB, index entries aside): ` +
      own.map((r) => `${r.table} ${r.rows} rows ${mib(r.bytes)} MB`).join(', '),
  );
} else if (rows.length < total && !args.report) {
  console.log(`stopped after ${rows.length} of ${total} re-syncs (--minutes): run again with --resume`);
} else {
  if (rows.length < total) console.log(`\nsummary of ${rows.length} of ${total} re-syncs (--report)`);
  const end = await dbBytes();
  console.log(
    `\nre-syncs: median ${(pct(times, 0.5) / 1000).toFixed(2)} s, p95 ${(pct(times, 0.95) / 1000).toFixed(2)} s, ` +
      `ratio ${(pct(times, 0.95) / pct(times, 0.5)).toFixed(2)} (target <= 2), max ${(Math.max(...times) / 1000).toFixed(2)} s`,
  );
  if (soak.filledAt !== undefined)
    console.log(
      `database: ${mb(soak.filledAt)} MB when the window first filled, ${mb(end)} MB at the end: ` +
        `${(end / soak.filledAt).toFixed(2)}x (target <= 1.2)`,
    );
  // Maintenance (retention's clean, purge and VACUUM (ANALYZE)) runs between syncs: the sync after it must not be
  // slower than 2x the median either, and the size once the window is full must stay flat (free space reused).
  const retention = rows.map((r) => Number(r.retention_ms));
  const filledIndex = rows.findIndex((r) => Number(r.db_bytes) === soak.filledAt);
  const after = rows.slice(Math.max(0, filledIndex)).map((r) => Number(r.db_bytes));
  console.log(
    `retention runs: median ${(pct(retention, 0.5) / 1000).toFixed(2)} s, max ${(Math.max(...retention) / 1000).toFixed(2)} s; ` +
      `database once the window was full: min ${mb(Math.min(...after))} MB, max ${mb(Math.max(...after))} MB ` +
      `over ${after.length} rounds`,
  );
  const firstReads = rows[0]!.reads;
  const lastReads = rows.at(-1)!.reads;
  console.log(
    `reads p50, first sync of the soak -> last: ${READS.map(([k]) => `${k} ${firstReads[k]!.toFixed(0)} -> ${lastReads[k]!.toFixed(0)} ms`).join(', ')}`,
  );
  console.log(
    `left behind by purges (rows naming a sync that no longer exists): ${JSON.stringify(await leftBehind(pool))}`,
  );
}
await connection.close();
await pool.end();
