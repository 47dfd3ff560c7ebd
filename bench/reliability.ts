/**
 * The load and fault harness (docs/reliability.md). With the stack up (`bash scripts/stack.sh up`, CKG_* ports
 * sourced), run steps by name, in order, each optionally repeated (`name=N`):
 *
 *   node --import tsx bench/reliability.ts fuzz storm syncs20 kill-worker=20 pg-crash=3 temporal=3 model-down=3 \
 *     sse=3 kill-graph=3 delete=3
 *
 * `all` runs every step with its default repetitions (kill-worker 20, the others REPEAT, default 1). Options:
 * FUZZ_REQUESTS (10000), FUZZ_SEED (1), CORPUS_FILES (40), FAULT_WINDOW_MS (the clean run's duration: faults land at
 * a random point within it), SSE_CLIENTS (200), PG_DOWN_MS (45000),
 * TEMPORAL_DOWN_MS (10000), MODEL_DOWN_MS (10000). After every repetition of every step it checks that no source is
 * blocked; it prints one PASS/FAIL line per invariant and exits 1 when one failed.
 */
import { availableParallelism } from 'node:os';
import { rmSync } from 'node:fs';
import {
  createSource,
  db,
  gatewayToken,
  loadNow,
  log,
  makeCorpus,
  runCounts,
  setChatLatency,
  setEmbeddingLatency,
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
import { storm, syncs20 } from './reliability/load.ts';
import { everyRead, nodeId, type ReadTargets } from './reliability/readers.ts';
import { killGatewaySse } from './reliability/sse.ts';

const env = (n: string, d: number) => Number(process.env[n] ?? d);
const STEPS = [
  'fuzz',
  'storm',
  'syncs20',
  'kill-worker',
  'pg-crash',
  'temporal',
  'model-down',
  'sse',
  'kill-graph',
  'delete',
];
const DEFAULT_TIMES: Record<string, number> = { 'kill-worker': 20, fuzz: 1 };
const plan: [string, number][] = [];
for (const arg of process.argv.slice(2)) {
  const [name, times] = arg.split('=') as [string, string | undefined];
  const names = name === 'all' ? STEPS : [name];
  for (const n of names) {
    if (!STEPS.includes(n)) throw new Error(`unknown step ${n}; steps: ${STEPS.join(' ')} all`);
    const t = times === undefined ? (DEFAULT_TIMES[n] ?? env('REPEAT', 1)) : Number(times);
    if (!Number.isInteger(t) || t < 1) throw new Error(`${arg}: the repetition count must be a positive integer`);
    plan.push([n, t]);
  }
}
if (plan.length === 0) throw new Error(`name the steps to run: ${STEPS.join(' ')} all (name=N repeats a step)`);
const results: StepResult[] = [];

log(`start; load ${loadNow()} on ${availableParallelism()} cores (shared machine); plan ${JSON.stringify(plan)}`);
const corpus = makeCorpus(env('CORPUS_FILES', 40));
const tag = Date.now().toString(36);
const baseSource = await createSource(`base-${tag}`, corpus);
const t0 = Date.now();
const cleanRun = await startSync(baseSource);
const clean = await waitEnd(cleanRun, 600_000);
if (clean.status !== 'completed') throw new Error(`the clean run ended ${clean.status}: ${clean.error}`);
const syncMs = Date.now() - t0;
// Faults land at a random point within this much of a run (default: the clean run's duration).
const faultMs = env('FAULT_WINDOW_MS', syncMs);
const baseline = await runCounts(cleanRun);
log(`clean run: ${(syncMs / 1000).toFixed(1)} s, counts ${JSON.stringify(baseline)} (load ${loadNow()})`);
const files = (
  await db.query<{ file_path: string }>(`SELECT file_path FROM file_records WHERE sync_id = $1 ORDER BY file_path`, [
    cleanRun,
  ])
).rows.map((r) => r.file_path);
const targets: ReadTargets = { sourceId: baseSource, syncId: cleanRun, files };

async function once(step: string, round: number): Promise<StepResult[]> {
  switch (step) {
    case 'fuzz': {
      const fuzzSource = await createSource(`fuzz-${tag}-${round}`, corpus);
      const n = env('FUZZ_REQUESTS', 10_000);
      const f = await fuzz(n, env('FUZZ_SEED', 1) + round - 1, {
        sourceId: fuzzSource,
        syncId: cleanRun,
        nodeId: nodeId(targets, files[0]!),
      });
      log(
        `fuzz #${round}: ${f.requests} requests in ${Math.round(f.ms / 1000)} s; statuses ${JSON.stringify(f.byStatus)}; 5xx ${f.fiveXx.length}; hangs ${f.hangs}; 4xx not in the error shape or 400 without field ${f.badShape.length}; a command ran: ${f.commandRan} (load ${loadNow()})`,
      );
      for (const x of [...f.fiveXx, ...f.badShape].slice(0, 15))
        log(`  ${x.status} ${x.method} ${x.path} ${JSON.stringify(x.body).slice(0, 200)}`);
      return [
        {
          step: `fuzz ${f.requests} #${round}`,
          ok: f.fiveXx.length === 0 && f.hangs === 0 && f.badShape.length === 0 && !f.commandRan,
          detail: `5xx ${f.fiveXx.length}, hangs ${f.hangs}, bad shape ${f.badShape.length}, command ran ${f.commandRan}`,
        },
      ];
    }
    case 'storm':
      return storm(targets, round);
    case 'syncs20':
      return [await syncs20(targets, corpus, baseline, syncMs, round)];
    case 'kill-worker':
      return [await killWorker(round, baseSource, baseline, faultMs)];
    case 'pg-crash':
      return [await pgCrash(round, baseSource, baseline, env('PG_DOWN_MS', 45_000), faultMs)];
    case 'temporal':
      return [await temporalRestart(round, baseSource, baseline, env('TEMPORAL_DOWN_MS', 10_000), faultMs)];
    case 'model-down':
      return [await modelDown(round, baseSource, baseline, env('MODEL_DOWN_MS', 10_000))];
    case 'sse':
      return [await killGatewaySse(baseSource, env('SSE_CLIENTS', 200), round)];
    case 'kill-graph':
      return [await killGraph(round, everyRead(targets), await gatewayToken())];
    case 'delete':
      return [await deleteMidSync(round, corpus, faultMs)];
  }
  throw new Error(step);
}

try {
  for (const [step, times] of plan) {
    for (let round = 1; round <= times; round++) {
      const started = Date.now();
      const r = await once(step, round);
      const blocked = await noneBlocked();
      blocked.step += ` after ${step} #${round}`;
      r.push(blocked);
      for (const x of r) log(`${x.ok ? 'ok  ' : 'FAIL'} ${x.step}: ${x.detail}`);
      log(`${step} #${round}: ${Math.round((Date.now() - started) / 1000)} s (load ${loadNow()})`);
      results.push(...r);
    }
  }
} finally {
  await setChatLatency(0).catch(() => undefined);
  await setEmbeddingLatency(0).catch(() => undefined);
  rmSync(corpus, { recursive: true, force: true });
}

log(`done; load ${loadNow()}`);
const byStep = new Map<string, { ok: number; n: number }>();
for (const r of results) {
  const key = r.step.replace(/ #\d+.*$/, '').replace(/ at \d+ ms.*$/, '');
  const s = byStep.get(key) ?? { ok: 0, n: 0 };
  s.n++;
  if (r.ok) s.ok++;
  byStep.set(key, s);
}
for (const r of results) log(`${r.ok ? 'PASS' : 'FAIL'} ${r.step}: ${r.detail}`);
for (const [k, s] of byStep) log(`summary: ${k}: ${s.ok}/${s.n} passed`);
await db.end();
process.exit(results.every((r) => r.ok) ? 0 : 1);
