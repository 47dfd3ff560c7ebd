/**
 * The load and fault harness (docs/reliability.md). With the stack up (`bash scripts/stack.sh up`, CKG_* ports
 * sourced), run steps by name, in order:
 *
 *   node --import tsx bench/reliability.ts fuzz storm syncs20 kill-worker delete kill-graph pg-crash temporal model-down
 *
 * `all` runs every step. Options: FUZZ_REQUESTS (10000), FUZZ_SEED (1), KILL_RUNS (20), CORPUS_FILES (60). It prints
 * figures and one line per invariant; exit 1 when an invariant failed.
 */
import { availableParallelism, loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import {
  URLS,
  createSource,
  db,
  fmt,
  http,
  log,
  makeCorpus,
  percentile,
  runCounts,
  setChatLatency,
  startSync,
  waitEnd,
} from './reliability/common.ts';
import {
  deleteMidSync,
  killGraph,
  killWorker,
  modelDown,
  noneBlocked,
  pgCrash,
  temporalRestart,
  type StepResult,
} from './reliability/faults.ts';
import { fuzz } from './reliability/fuzz.ts';

const env = (n: string, d: number) => Number(process.env[n] ?? d);
const steps = process.argv.slice(2);
const all = steps.includes('all');
const want = (s: string) => all || steps.includes(s);
const results: StepResult[] = [];
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

log(`start; load ${load()} on ${availableParallelism()} cores (shared machine)`);
const corpus = makeCorpus(env('CORPUS_FILES', 60));
const tag = Date.now().toString(36);
const baseSource = await createSource(`base-${tag}`, corpus);
const t0 = Date.now();
const cleanRun = await startSync(baseSource);
const clean = await waitEnd(cleanRun, 600_000);
if (clean.status !== 'completed') throw new Error(`the clean run ended ${clean.status}: ${clean.error}`);
const syncMs = Date.now() - t0;
const baseline = await runCounts(cleanRun);
log(`clean run: ${Math.round(syncMs / 1000)} s, counts ${JSON.stringify(baseline)}`);
const files = (
  await db.query<{ file_path: string }>(`SELECT file_path FROM file_records WHERE sync_id = $1 ORDER BY file_path`, [
    cleanRun,
  ])
).rows.map((r) => r.file_path);
const nodeId = (p: string) => `src_${baseSource}:${p}`;

async function readers(n: number, until: () => boolean) {
  const lat: Record<string, number[]> = {};
  const statuses: Record<string, number> = {};
  let hung = 0;
  const paths = [
    ['node', () => `/api/graph/nodes/${encodeURIComponent(nodeId(files[Math.floor(Math.random() * files.length)]!))}`],
    [
      'file',
      () => `/api/graph/nodes/${encodeURIComponent(nodeId(files[Math.floor(Math.random() * files.length)]!))}/file`,
    ],
    ['stats', () => '/api/graph/stats'],
    [
      'search',
      () =>
        `/api/graph/search?q=${encodeURIComponent(['pool', 'error', 'sync run', 'cursor'][Math.floor(Math.random() * 4)]!)}`,
    ],
    ['sources', () => '/api/sources'],
    ['syncs', () => '/api/syncs?limit=20'],
  ] as const;
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      let k = i;
      while (!until()) {
        const [name, path] = paths[k++ % paths.length]!;
        const r = await http('GET', URLS.graph + path());
        (lat[name] ??= []).push(r.ms);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.hung) hung++;
      }
    }),
  );
  return { lat, statuses, hung };
}

function report(name: string, r: Awaited<ReturnType<typeof readers>>) {
  const every = Object.values(r.lat).flat();
  log(
    `${name}: reads ${every.length}, p50 ${fmt(percentile(every, 50))}, p99 ${fmt(percentile(every, 99))}, statuses ${JSON.stringify(r.statuses)}, hung ${r.hung}`,
  );
  for (const [k, v] of Object.entries(r.lat))
    log(`  ${k}: n ${v.length} p50 ${fmt(percentile(v, 50))} p99 ${fmt(percentile(v, 99))}`);
  return percentile(every, 99);
}

try {
  if (want('fuzz')) {
    const fuzzSource = await createSource(`fuzz-${tag}`, corpus);
    const n = env('FUZZ_REQUESTS', 10_000);
    const f = await fuzz(n, env('FUZZ_SEED', 1), { sourceId: fuzzSource, syncId: cleanRun, nodeId: nodeId(files[0]!) });
    log(
      `fuzz: ${f.requests} requests in ${Math.round(f.ms / 1000)} s; statuses ${JSON.stringify(f.byStatus)}; 5xx ${f.fiveXx.length}; hangs ${f.hangs}; 4xx not in the error shape or 400 without field ${f.badShape.length} (load ${load()})`,
    );
    for (const x of [...f.fiveXx, ...f.badShape].slice(0, 15))
      log(`  ${x.status} ${x.method} ${x.path} ${JSON.stringify(x.body).slice(0, 200)}`);
    results.push({
      step: `fuzz ${f.requests}`,
      ok: f.fiveXx.length === 0 && f.hangs === 0 && f.badShape.length === 0,
      detail: `5xx ${f.fiveXx.length}, hangs ${f.hangs}, bad shape ${f.badShape.length}`,
    });
  }

  if (want('storm')) {
    await setChatLatency(3000);
    const idle = await readers(
      20,
      (() => {
        const end = Date.now() + 10_000;
        return () => Date.now() > end;
      })(),
    );
    const idleP99 = report('reads, no summaries (10 s)', idle);
    let done = 0;
    // 100 requests over the corpus's files (with 60 files, 40 of them join a generation already in flight).
    const storm = Array.from({ length: 100 }, (_, i) =>
      http(
        'GET',
        `${URLS.graph}/api/graph/nodes/${encodeURIComponent(nodeId(files[i % files.length]!))}/summary?force=true`,
        undefined,
        { timeoutMs: 130_000 },
      ).then((r) => {
        done++;
        return r;
      }),
    );
    const busy = await readers(20, () => done >= 100);
    const replies = await Promise.all(storm);
    const p99 = report('reads while 100 summaries wait on a 3 s model', busy);
    const st: Record<string, number> = {};
    for (const r of replies) st[r.status] = (st[r.status] ?? 0) + 1;
    const other5xx = replies.filter((r) => r.status >= 500 && r.status !== 503).length;
    const with503 = replies.filter((r) => r.status === 503);
    const retryAfter = with503.every((r) => r.headers?.get('retry-after'));
    log(
      `storm: summaries ${JSON.stringify(st)}; 503 with Retry-After: ${retryAfter}; p99 ${fmt(
        percentile(
          replies.filter((r) => r.status === 200).map((r) => r.ms),
          99,
        ),
      )} (load ${load()})`,
    );
    results.push({
      step: 'reads p99 <= 100 ms during the summary storm',
      ok: p99 <= 100 && busy.hung === 0,
      detail: `p99 ${fmt(p99)} (idle ${fmt(idleP99)}), hung ${busy.hung}`,
    });
    results.push({
      step: 'summary storm answers',
      ok: other5xx === 0 && retryAfter && replies.every((r) => !r.hung),
      detail: JSON.stringify(st),
    });
    await setChatLatency(0);
  }

  if (want('syncs20')) {
    const sources = await Promise.all(Array.from({ length: 20 }, (_, i) => createSource(`load-${tag}-${i}`, corpus)));
    const runs = await Promise.all(sources.map((s) => startSync(s)));
    let finished = 0;
    const ends = Promise.all(
      runs.map((r) =>
        waitEnd(r, 900_000).then((e) => {
          finished++;
          return e;
        }),
      ),
    );
    const rd = await readers(20, () => finished >= 20);
    const e = await ends;
    report('reads while 20 sources sync', rd);
    let equal = 0;
    for (const r of runs) if (JSON.stringify(await runCounts(r)) === JSON.stringify(baseline)) equal++;
    log(
      `syncs20: ${e.filter((x) => x.status === 'completed').length}/20 completed, ${equal}/20 counts equal the clean run, slowest ${Math.round(Math.max(...e.map((x) => x.ms)) / 1000)} s (load ${load()})`,
    );
    results.push({
      step: '20 concurrent syncs + 20 readers',
      ok: equal === 20 && rd.hung === 0 && !rd.statuses['500'],
      detail: `${equal}/20 equal counts; read statuses ${JSON.stringify(rd.statuses)}`,
    });
  }

  if (want('kill-worker')) results.push(...(await killWorker(env('KILL_RUNS', 20), baseSource, baseline, syncMs)));
  if (want('delete')) results.push(await deleteMidSync(corpus));
  if (want('kill-graph')) results.push(await killGraph(nodeId(files[0]!)));
  if (want('pg-crash')) results.push(await pgCrash(baseSource, baseline, env('PG_DOWN_MS', 45_000)));
  if (want('temporal')) results.push(await temporalRestart(baseSource, baseline));
  if (want('model-down')) results.push(await modelDown(baseSource, baseline));
  results.push(await noneBlocked());
} finally {
  await setChatLatency(0).catch(() => undefined);
  rmSync(corpus, { recursive: true, force: true });
}

log(`done; load ${load()}`);
for (const r of results) log(`${r.ok ? 'PASS' : 'FAIL'} ${r.step}: ${r.detail}`);
await db.end();
process.exit(results.every((r) => r.ok) ? 0 : 1);
