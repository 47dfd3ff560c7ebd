/**
 * The precise tier on real repositories (issue 29's targets), through real syncs:
 *
 *   1. equality: per repository and language the precise step indexed, the `provenance: scip` edges the sync stored
 *      equal a direct reading of the indexer's output (the indexer run here on the same tree, its index read and
 *      derived with the sync's own symbol facts: test/support/precise.ts). Any difference is printed and the script
 *      exits 1;
 *   2. what the precise tier changed against the heuristic tier (edges added, removed, confirmed, the confidence
 *      moved), read from both tiers' synced databases: the same commit synced once without the precise step (database
 *      A) and once with it (database B); the sync's own stats.precise must say the same (else exit 1);
 *   3. wall time: sync A (no precise step) against sync B (the precise step beside the embedding steps), as a ratio.
 *
 * Each sync worker and the precise worker run as processes of their own, as deployed (temporal/worker-main.ts,
 * temporal/precise-worker-main.ts); embeddings go to the project's model-host stand-in (lexical, or the real MiniLM
 * model with --model minilm). A and B have databases of their own, so neither reuses the other's contents.
 *
 *   set -a; source .stack/env; set +a            # DATABASE_URL, TEMPORAL_ADDRESS, CKG_SCIP_* (scripts/stack/indexers.sh)
 *   heavy node --import tsx bench/precise-real.ts [--repos hono,flask] [--mirrors /work/.mirror] [--model minilm]
 *         [--no-ab] [--rounds N] [--no-direct] [--sync-timeout S] [--json FILE]
 *
 * It prints as it goes: each activity of a sync as it ends (`[hono A1] +12.3 s parseBatch (2.1 s)`), each sync's wall
 * and steps as it ends, and each A/B pair's ratio as the pair ends, so a run cut off by its slot still leaves figures.
 * --no-direct leaves out the direct reading (the equality check; a long run with the real model measures walls only).
 * --sync-timeout (seconds, default 900) terminates a sync still running then, and the repository is reported failed.
 *
 * Repositories come from git mirrors (`<mirrors>/<owner>+<name>/repo`, bare: the search tool's fetch lays them out so),
 * copied with `git archive HEAD` into a temporary repository at run time; nothing is committed. --no-ab syncs only B
 * (equality and the stats' delta, no wall-time ratio and no delta from database A).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../test/support/db.ts';
import { connectClient, uniqueTaskQueue } from '../test/support/temporal.ts';
import { insertPendingSync, insertSource } from '../test/support/pipeline.ts';
import { startWorkerProcess, type WorkerProcess } from '../test/support/worker-process.ts';
import { testEnv, TEST_URL_ENV } from '../test/support/env.ts';
import { directReading, expectedEdges, storedSymbolEdges, type StoredSymbolEdge } from '../test/support/precise.ts';
import type { WorkflowHandle } from '@temporalio/client';
import { startModelHost } from '../standins/model-host/server.ts';
import { createLogger } from '../lib/log.ts';
import { SYNC_WORKFLOW_TYPE, syncStartOptions } from '../workflows/sync-contract.ts';
import type { syncWorkflow } from '../workflows/sync.ts';
import type { PreciseLanguageResult, SyncStats } from '../workflows/sync-types.ts';
import type { PreciseResult } from '../engine/precise/derive.ts';
import { installedIndexers, type PreciseLanguage } from '../activities/precise/indexers.ts';
import { commitAll } from './support/snapshot.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface RepoSpec {
  name: string;
  mirror: string;
  language: string;
}

/** Two real repositories per language of the precise tier. */
const REPOS: RepoSpec[] = [
  { name: 'hono', mirror: 'honojs+hono', language: 'typescript' },
  { name: 'zod', mirror: 'colinhacks+zod', language: 'typescript' },
  { name: 'flask', mirror: 'pallets+flask', language: 'python' },
  { name: 'fastapi', mirror: 'fastapi+fastapi', language: 'python' },
  { name: 'chi', mirror: 'go-chi+chi', language: 'go' },
  { name: 'mux', mirror: 'gorilla+mux', language: 'go' },
  // cobra requires modules (spf13/pflag): with PRECISE_ALLOW_DEPENDENCIES=false its index fails (an issue, heuristic
  // edges kept) unless the worker's module cache holds them.
  { name: 'cobra', mirror: 'spf13+cobra', language: 'go' },
  { name: 'gson', mirror: 'google+gson', language: 'java' },
  { name: 'jsoup', mirror: 'jhy+jsoup', language: 'java' },
];

const { values: opts } = parseArgs({
  options: {
    repos: { type: 'string' },
    mirrors: { type: 'string', default: '/work/.mirror' },
    model: { type: 'string', default: 'lexical' },
    'no-ab': { type: 'boolean', default: false },
    json: { type: 'string' },
    // A/B pairs per repository (A, B, A, B, ...): the wall ratio is the median of the pairs' ratios.
    rounds: { type: 'string', default: '1' },
    'no-direct': { type: 'boolean', default: false },
    'sync-timeout': { type: 'string', default: '900' },
  },
});

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/** A copy of the mirror's HEAD as a repository of its own, in a temporary folder. */
function checkout(spec: RepoSpec): string {
  const mirror = join(opts.mirrors, spec.mirror, 'repo');
  if (!existsSync(mirror)) throw new Error(`no mirror ${mirror} (fetch github:${spec.mirror.replace('+', '/')})`);
  const dir = mkdtempSync(join(tmpdir(), `ckg-precise-real-${spec.name}-`));
  execFileSync('bash', ['-c', `git --git-dir="$0" archive HEAD | tar -x -C "$1"`, mirror, dir]);
  commitAll(dir);
  return dir;
}

/** The precise worker as a process of its own, resolved once it declared itself. */
function startPreciseWorker(env: Record<string, string>): Promise<{ child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'temporal/precise-worker-main.ts'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', METRICS_PORT: '0', ...TEST_URL_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`precise worker did not start:\n${output.join('').slice(-3000)}`));
    }, 120_000);
    child.stdout.on('data', (d: Buffer) => {
      const s = d.toString('utf8');
      output.push(s);
      if (s.includes('"precise_worker_started"')) {
        clearTimeout(timer);
        resolve({ child, stop });
      }
    });
    child.stderr.on('data', (d: Buffer) => output.push(d.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`precise worker exited (${code}):\n${output.join('').slice(-3000)}`));
    });
  });
}

interface Side {
  db: TestDatabase;
  worker: WorkerProcess;
  taskQueue: string;
}

async function startSide(name: string, embeddingUrl: string, precise: boolean): Promise<Side> {
  const db = await createTestDatabase();
  const taskQueue = uniqueTaskQueue(`precise-real-${name}`);
  const cloneDir = mkdtempSync(join(tmpdir(), `ckg-precise-real-clones-${name}-`));
  const worker = await startWorkerProcess({
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: testEnv.temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    EMBEDDING_URL: embeddingUrl,
    WORKER_CLONE_DIR: cloneDir,
    SYNC_PRECISE: precise ? 'true' : 'false',
  });
  return { db, worker, taskQueue };
}

type Client = Awaited<ReturnType<typeof connectClient>>['client'];

/** Seconds, from a history event's time. */
const eventMs = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : 0;

/**
 * Prints each activity of the sync as it ends (polling its history every 5 s), with the time since the sync started
 * and the activity's own time since it was scheduled; returns a function that stops it after one last poll.
 */
function watchPhases(handle: WorkflowHandle, label: string, started: number) {
  const seen = new Set<string>();
  let stopped = false;
  const poll = async () => {
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = new Map<string, { type: string; at: number }>();
    for (const e of events) {
      const a = e.activityTaskScheduledEventAttributes;
      if (a) scheduled.set(String(e.eventId), { type: String(a.activityType?.name ?? '?'), at: eventMs(e.eventTime) });
      const end =
        e.activityTaskCompletedEventAttributes ??
        e.activityTaskFailedEventAttributes ??
        e.activityTaskTimedOutEventAttributes ??
        e.activityTaskCanceledEventAttributes;
      if (!end || seen.has(String(e.eventId))) continue;
      seen.add(String(e.eventId));
      const s = scheduled.get(String(end.scheduledEventId));
      const how = e.activityTaskCompletedEventAttributes ? '' : ' NOT COMPLETED';
      const at = eventMs(e.eventTime);
      console.log(
        `    [${label}] +${((at - started) / 1000).toFixed(1)} s ${s?.type ?? '?'}${how} (${s ? ((at - s.at) / 1000).toFixed(1) : '?'} s)`,
      );
    }
  };
  let wake = () => {};
  const loop = (async () => {
    while (!stopped) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, 5000);
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
      if (!stopped) await poll().catch(() => undefined);
    }
  })();
  return async () => {
    stopped = true;
    wake();
    await loop;
    await poll().catch(() => undefined);
  };
}

async function sync(client: Client, side: Side, repo: string, name: string, label: string) {
  const sourceId = await insertSource(side.db.pool, { url: repo, owner: 'bench', name });
  const syncId = await insertPendingSync(side.db.pool, sourceId);
  const started = Date.now();
  const handle = await client.workflow.start<typeof syncWorkflow>(
    SYNC_WORKFLOW_TYPE,
    syncStartOptions({
      syncId,
      sourceId,
      sourceName: `bench/${name}`,
      ref: 'main',
      trigger: 'bench',
      taskQueue: side.taskQueue,
    }),
  );
  const stopWatch = watchPhases(handle, label, started);
  const deadline = started + Number(opts['sync-timeout']) * 1000;
  let result;
  let wallMs: number | undefined;
  try {
    for (;;) {
      if (Date.now() > deadline) {
        await handle.terminate('bench: --sync-timeout');
        throw new Error(`${label}: still running after ${opts['sync-timeout']} s (terminated)`);
      }
      try {
        result = await handle.result();
        // The wall ends when the result arrives (not after the phase watcher's last poll).
        wallMs = Date.now() - started;
        break;
      } catch (err) {
        if ((err as { cause?: { code?: number } }).cause?.code !== 4) throw err; // DEADLINE_EXCEEDED: poll again
      }
    }
  } finally {
    await stopWatch();
  }
  if (result.status !== 'completed' || wallMs === undefined)
    throw new Error(`${name}: sync ${result.status}: ${result.error ?? ''}`);
  const stats = (await side.db.pool.query<{ stats: SyncStats }>(`SELECT stats FROM sync_runs WHERE id = $1`, [syncId]))
    .rows[0]!.stats;
  console.log(
    `  ${label}: ${(wallMs / 1000).toFixed(1)} s; load ${load()}; steps ${JSON.stringify(stats.durations_ms)}` +
      (stats.precise
        ? `; precise ${JSON.stringify(Object.values(stats.precise).map((p) => ({ language: p.language, status: p.status, indexer_ms: p.indexer_ms, ms: p.ms })))}`
        : ''),
  );
  return { sourceId, syncId, wallMs, stats };
}

const edgeKey = (e: { label: string; from: string; to: string }) => `${e.label} ${e.from} -> ${e.to}`;

/** The stored scip edges must equal the direct reading: the differences, at most `max` of each side. */
function compare(
  stored: Array<Omit<StoredSymbolEdge, 'toKind'>>,
  expected: Array<Omit<StoredSymbolEdge, 'toKind'>>,
  max = 10,
): string[] {
  const a = new Map(stored.map((e) => [edgeKey(e), JSON.stringify(e)]));
  const b = new Map(expected.map((e) => [edgeKey(e), JSON.stringify(e)]));
  const out: string[] = [];
  for (const [k, v] of a) if (b.get(k) !== v && out.length < max) out.push(`stored ${v}; direct ${b.get(k) ?? '-'}`);
  for (const [k, v] of b) if (!a.has(k) && out.length < 2 * max) out.push(`direct only ${v}`);
  return out;
}

interface Delta {
  covered_files: number;
  heuristic_replaceable: number;
  scip: number;
  added: number;
  removed: number;
  confirmed: number;
  confidence_moved: number;
  removed_by_provenance: Record<string, number>;
  confirmed_by_provenance: Record<string, number>;
  kept_heuristic: number;
}

/**
 * What the precise tier changed: A's heuristic edges the precise step replaces (calls from a covered file, references
 * from one to a function or method, hierarchy edges between two symbols the index relates) against B's scip edges.
 */
function delta(a: StoredSymbolEdge[], b: StoredSymbolEdge[], covered: ReadonlySet<string>): Delta {
  const inCovered = (ref: string) => covered.has(ref.slice(0, ref.indexOf('#')));
  const scip = b.filter((e) => e.provenance === 'scip');
  const related = new Set(
    scip.filter((e) => e.label !== 'calls' && e.label !== 'references').map((e) => `${e.from} ${e.to}`),
  );
  const replaceable = a.filter((e) =>
    e.label === 'calls' || e.label === 'references'
      ? inCovered(e.from) && (e.label === 'calls' || ['function', 'method'].includes(e.toKind))
      : related.has(`${e.from} ${e.to}`),
  );
  const heur = new Map(replaceable.map((e) => [edgeKey(e), e]));
  const d: Delta = {
    covered_files: covered.size,
    heuristic_replaceable: replaceable.length,
    scip: scip.length,
    added: 0,
    removed: 0,
    confirmed: 0,
    confidence_moved: 0,
    removed_by_provenance: {},
    confirmed_by_provenance: {},
    kept_heuristic: b.filter((e) => e.provenance !== 'scip').length,
  };
  let moved = 0;
  for (const e of scip) {
    const h = heur.get(edgeKey(e));
    if (!h) {
      d.added++;
      continue;
    }
    d.confirmed++;
    moved += 1 - h.confidence;
    d.confirmed_by_provenance[h.provenance] = (d.confirmed_by_provenance[h.provenance] ?? 0) + 1;
    heur.delete(edgeKey(e));
  }
  for (const h of heur.values()) {
    d.removed++;
    d.removed_by_provenance[h.provenance] = (d.removed_by_provenance[h.provenance] ?? 0) + 1;
  }
  d.confidence_moved = d.confirmed === 0 ? 0 : Number((moved / d.confirmed).toFixed(4));
  return d;
}

interface RepoReport {
  repo: string;
  files: number;
  languages: Record<string, PreciseLanguageResult & { equal?: boolean; direct_edges?: number; diff?: string[] }>;
  delta?: Delta;
  stats_delta: { added: number; removed: number; confirmed: number };
  wall_a_ms?: number;
  wall_b_ms: number;
  ratio?: number;
  /** Every A/B pair's walls (ms) and ratio, with the load before each pair, when --rounds > 1. */
  pairs?: Array<{ a: number; b: number; ratio: number; load: string }>;
  durations_a?: SyncStats['durations_ms'];
  durations_b: SyncStats['durations_ms'];
  load: string;
  failures: string[];
}

async function runRepo(client: Client, spec: RepoSpec, a: Side | null, b: Side): Promise<RepoReport> {
  const dir = checkout(spec);
  const failures: string[] = [];
  try {
    const files = Number(
      execFileSync('git', ['-C', dir, 'ls-files'], { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n').length - 1,
    );
    const loadBefore = load();
    console.log(`\n== ${spec.name}: ${files} files; load ${loadBefore}`);
    const printPair = (p: { a: number; b: number; ratio: number; load: string }, i: number) =>
      console.log(
        `  pair ${i}: A ${(p.a / 1000).toFixed(1)} s, B ${(p.b / 1000).toFixed(1)} s, ratio ${p.ratio.toFixed(2)}; load ${p.load} → ${load()}`,
      );
    const ra = a ? await sync(client, a, dir, `${spec.name}-a`, `${spec.name} A1`) : null;
    const rb = await sync(client, b, dir, `${spec.name}-b`, `${spec.name} B1`);
    // More A/B pairs (new sources each time: nothing is reused), for a ratio less at the mercy of the machine's load.
    const pairs = ra ? [{ a: ra.wallMs, b: rb.wallMs, ratio: rb.wallMs / ra.wallMs, load: loadBefore }] : [];
    if (pairs[0]) printPair(pairs[0], 1);
    for (let i = 1; a && i < Number(opts.rounds); i++) {
      const l = load();
      const x = await sync(client, a, dir, `${spec.name}-a${i}`, `${spec.name} A${i + 1}`);
      const y = await sync(client, b, dir, `${spec.name}-b${i}`, `${spec.name} B${i + 1}`);
      pairs.push({ a: x.wallMs, b: y.wallMs, ratio: y.wallMs / x.wallMs, load: l });
      printPair(pairs[i]!, i + 1);
    }
    const report: RepoReport = {
      repo: spec.name,
      files,
      languages: {},
      stats_delta: { added: 0, removed: 0, confirmed: 0 },
      wall_b_ms: rb.wallMs,
      durations_b: rb.stats.durations_ms,
      load: `${loadBefore} → ${load()}`,
      failures,
    };
    if (ra) {
      report.wall_a_ms = ra.wallMs;
      report.durations_a = ra.stats.durations_ms;
      const ratios = pairs.map((p) => p.ratio).sort((x, y) => x - y);
      report.ratio = Number(ratios[Math.floor((ratios.length - 1) / 2)]!.toFixed(2));
      if (pairs.length > 1) report.pairs = pairs.map((p) => ({ ...p, ratio: Number(p.ratio.toFixed(2)) }));
    }
    const storedB = await storedSymbolEdges(b.db.pool, rb.syncId);
    const covered = new Set<string>();
    const expected: Array<Omit<StoredSymbolEdge, 'toKind'>> = [];
    const bins = installedIndexers();
    for (const [language, r] of Object.entries(rb.stats.precise ?? {})) {
      report.languages[language] = { ...r };
      report.stats_delta.added += r.added;
      report.stats_delta.removed += r.removed;
      report.stats_delta.confirmed += r.confirmed;
      if (r.status !== 'indexed') {
        failures.push(`${spec.name} ${language}: precise step ${r.status} (${r.reason ?? ''})`);
        continue;
      }
      const stored = await b.db.pool.query<{ result: PreciseResult }>(
        `SELECT result FROM precise_results WHERE source_id = $1 AND language = $2`,
        [rb.sourceId, language],
      );
      for (const f of stored.rows[0]?.result.covered ?? []) covered.add(f);
      if (opts['no-direct']) continue;
      const direct = await directReading(
        b.db.pool,
        rb.syncId,
        language as PreciseLanguage,
        dir,
        bins[language as PreciseLanguage]!,
        {
          wallMs: 900_000,
          memoryMb: 4096,
          goCacheDir: join(homedir(), '.cache', 'ckg', 'scip', 'go-cache'),
        },
      );
      expected.push(...expectedEdges(direct));
      report.languages[language].direct_edges = direct.edges.length;
    }
    const storedScip = storedB.filter((e) => e.provenance === 'scip').map(({ toKind: _k, ...e }) => e);
    expected.sort((x, y) => (edgeKey(x) < edgeKey(y) ? -1 : 1));
    const diff = compare(storedScip, expected);
    for (const l of Object.values(report.languages))
      if (l.status === 'indexed' && !opts['no-direct']) l.equal = diff.length === 0;
    if (diff.length > 0 && !opts['no-direct'])
      failures.push(`${spec.name}: stored scip edges differ from the direct reading:\n  ${diff.join('\n  ')}`);
    if (ra && a) {
      report.delta = delta(await storedSymbolEdges(a.db.pool, ra.syncId), storedB, covered);
      const s = report.stats_delta;
      const d = report.delta;
      if (s.added !== d.added || s.removed !== d.removed || s.confirmed !== d.confirmed)
        failures.push(
          `${spec.name}: the sync's stats.precise (added ${s.added}, removed ${s.removed}, confirmed ${s.confirmed}) disagree with the two databases (added ${d.added}, removed ${d.removed}, confirmed ${d.confirmed})`,
        );
    }
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function print(r: RepoReport): void {
  const s = (ms?: number) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);
  console.log(`\n== ${r.repo}: ${r.files} files; load ${r.load} (summary)`);
  for (const [l, x] of Object.entries(r.languages))
    console.log(
      `  ${l}: ${x.status}${x.reason ? ` (${x.reason})` : ''}; scip edges ${x.edges}, direct reading ${x.direct_edges ?? '-'}, equal ${x.equal ?? '-'}; callables ${x.callables ?? '-'}, matched ${x.matched ?? '-'}; indexer ${s(x.indexer_ms)}, step ${s(x.ms)}`,
    );
  if (r.delta) {
    const d = r.delta;
    console.log(
      `  delta vs heuristic (covered files ${d.covered_files}): heuristic edges replaceable ${d.heuristic_replaceable}, scip ${d.scip}; added ${d.added}, removed ${d.removed}, confirmed ${d.confirmed} (confidence +${d.confidence_moved}); heuristic edges kept ${d.kept_heuristic}`,
    );
    console.log(`    removed by provenance ${JSON.stringify(d.removed_by_provenance)}`);
    console.log(`    confirmed by provenance ${JSON.stringify(d.confirmed_by_provenance)}`);
  }
  const d = r.durations_b;
  if (r.durations_a) console.log(`  A's steps: ${JSON.stringify(r.durations_a)}`);
  console.log(`  B's steps: ${JSON.stringify(d)}`);
  for (const p of r.pairs ?? []) console.log(`  pair: A ${s(p.a)}, B ${s(p.b)}, ratio ${p.ratio}; load ${p.load}`);
  console.log(
    `  wall: without precise ${s(r.wall_a_ms)}, with ${s(r.wall_b_ms)}, ratio ${r.ratio ?? '-'}; B's steps: embedding ${s((d.embedding_summaries ?? 0) + (d.embedding_chunks ?? 0))}, precise ${s(d.precise)}, total ${s(d.total)}`,
  );
}

async function main() {
  const names = opts.repos ? opts.repos.split(',') : REPOS.map((r) => r.name);
  const specs = names.map((n) => {
    const s = REPOS.find((r) => r.name === n);
    if (!s) throw new Error(`unknown repository ${n} (known: ${REPOS.map((r) => r.name).join(', ')})`);
    return s;
  });
  const standin = await startModelHost(
    opts.model === 'minilm'
      ? {
          embeddingModel: 'minilm',
          // The stack's Python environment with the model (scripts/stack/minilm.sh).
          python:
            process.env.MODEL_HOST_PYTHON ?? join(homedir(), '.cache', 'ckg', 'minilm-0.1.2', 'venv', 'bin', 'python'),
        }
      : {},
    createLogger('model-host', { level: 'warning' }),
  );
  const { client, close } = await connectClient();
  const workDir = join(homedir(), '.cache', 'ckg', 'scip', 'bench-work');
  mkdirSync(workDir, { recursive: true });
  const a = opts['no-ab'] ? null : await startSide('a', standin.embeddingUrl, false);
  const b = await startSide('b', standin.embeddingUrl, true);
  const precise = await startPreciseWorker({
    DATABASE_URL: b.db.url,
    TEMPORAL_ADDRESS: testEnv.temporalAddress,
    PRECISE_QUEUE_PREFIX: uniqueTaskQueue('precise-real'),
    PRECISE_WORK_DIR: workDir,
  });
  const reports: RepoReport[] = [];
  try {
    console.log(`precise tier on real repositories; embeddings: ${opts.model}; load ${load()}`);
    for (const spec of specs) {
      try {
        const r = await runRepo(client, spec, a, b);
        print(r);
        reports.push(r);
      } catch (err) {
        console.log(`\n== ${spec.name}: FAILED ${String(err)}`);
        reports.push({ repo: spec.name, failures: [String(err)] } as RepoReport);
      }
    }
  } finally {
    await precise.stop();
    for (const side of [a, b]) {
      if (!side) continue;
      await side.worker.kill('SIGTERM');
      await side.db.drop();
    }
    await close();
    await standin.close();
  }
  if (opts.json) writeFileSync(opts.json, JSON.stringify(reports, null, 2));
  const failures = reports.flatMap((r) => r.failures);
  console.log(failures.length === 0 ? '\nall equal' : `\n${failures.length} failure(s):\n${failures.join('\n')}`);
  process.exit(failures.length === 0 ? 0 : 1);
}

await main();
