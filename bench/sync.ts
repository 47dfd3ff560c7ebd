/**
 * Benchmark of a full sync: a git copy of the Go standard library ($(go env GOROOT)/src, ≈11k files) synced from
 * local disk by the worker running as its own process — first without embeddings (source config
 * `embeddings: false`), then with the project's model-host stand-in (standins/model-host, in this process) as the
 * embedding endpoint. Prints wall time per phase, files/s, rows/s, edges/s, the worker's peak RSS, and the
 * embedding client's overhead over the stand-in's own time.
 *
 * CPU time is printed beside wall time (the machine is shared, so wall time moves with the load): the worker
 * process's (all threads, and the git processes it ran: the clone's fetch and checkout), the database backends'
 * serving the bench database (sampled while the sync runs), and the database server's background processes' (WAL
 * writer, checkpointer, background writer, autovacuum: the whole server's, so other databases' work counts too).
 *
 *   DATABASE_URL=... TEMPORAL_ADDRESS=... node --import tsx bench/sync.ts [--no-embeddings] [--src DIR] [--runs N]
 *
 * --runs N repeats the sync without embeddings N times (a new source each time) and prints the medians.
 * --cpu-prof DIR writes the worker's V8 CPU profiles (main thread and parse threads) into DIR when it stops.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../test/support/db.ts';
import { startModelHost } from '../standins/model-host/server.ts';
import { createLogger } from '../lib/log.ts';
import { connectClient, uniqueTaskQueue } from '../test/support/temporal.ts';
import { insertPendingSync, insertSource, syncCounts } from '../test/support/pipeline.ts';
import { startWorkerProcess } from '../test/support/worker-process.ts';
import { testEnv } from '../test/support/env.ts';
import { SYNC_WORKFLOW_TYPE, syncStartOptions } from '../workflows/sync-contract.ts';
import type { syncWorkflow } from '../workflows/sync.ts';
import type { SyncStats } from '../workflows/sync-types.ts';
import { chunkEmbeddingInput } from '../engine/index.ts';
import { EmbeddingClient } from '../lib/embeddings.ts';
import type { Pool } from '../lib/db.ts';
import { snapshotOf } from './support/snapshot.ts';
import type { google, temporal } from '@temporalio/proto';

const args = process.argv.slice(2);
const withEmbeddings = !args.includes('--no-embeddings');
const srcArg = args.indexOf('--src');
const runsArg = args.indexOf('--runs');
const repeat = runsArg >= 0 ? Math.max(1, Number(args[runsArg + 1])) : 1;
const profArg = args.indexOf('--cpu-prof');
const workerNodeArgs = profArg >= 0 ? ['--cpu-prof', `--cpu-prof-dir=${args[profArg + 1]}`] : [];
const goSrc =
  srcArg >= 0 ? args[srcArg + 1]! : join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'src');

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** A workflow's result. On a busy machine the history long-poll can end in DEADLINE_EXCEEDED: poll again. */
async function resultOf<T>(handle: { result(): Promise<T> }): Promise<T> {
  for (;;) {
    try {
      return await handle.result();
    } catch (err) {
      const cause = (err as { cause?: { code?: number } }).cause;
      if (cause?.code !== 4) throw err; // gRPC DEADLINE_EXCEEDED
    }
  }
}

const TICKS_PER_SECOND = 100;

/**
 * utime + stime of a process (all its threads, ended ones included), or of one thread of process `of`, in seconds;
 * `children`: with the CPU of the child processes it waited for (the worker's git commands).
 */
function cpuOfPid(pid: number, of?: number, children = false): number {
  try {
    const stat = readFileSync(of === undefined ? `/proc/${pid}/stat` : `/proc/${of}/task/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(f[11]) + Number(f[12]);
    return (children ? own + Number(f[13]) + Number(f[14]) : own) / TICKS_PER_SECOND;
  } catch {
    return 0; // the process ended
  }
}

/** CPU seconds of each thread of a process, by thread id. */
function threadCpu(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) out.set(Number(tid), cpuOfPid(Number(tid), pid));
  } catch {
    // the process ended
  }
  return out;
}

/** The worker's CPU by thread over a run: the main thread, then the busiest others (parse threads, V8's GC helpers). */
function threadBreakdown(pid: number, before: Map<number, number>): string {
  const rows = [...threadCpu(pid)].map(([tid, cpu]) => [tid, cpu - (before.get(tid) ?? 0)] as const);
  const main = rows.find(([tid]) => tid === pid)?.[1] ?? 0;
  const others = rows.filter(([tid, cpu]) => tid !== pid && cpu >= 0.5).sort((a, b) => b[1] - a[1]);
  return `main thread ${main.toFixed(1)} s; other threads ${others.map(([, c]) => c.toFixed(1)).join(', ')} s`;
}

/**
 * CPU seconds used so far by each backend serving the database (`background`: by each of the server's background
 * processes instead), keyed by pid.
 */
async function backendCpu(pool: Pool, dbName: string, background = false): Promise<Map<number, number>> {
  const res = background
    ? await pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE backend_type <> 'client backend'`)
    : await pool.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [dbName],
      );
  return new Map(res.rows.map((r) => [r.pid, cpuOfPid(r.pid)]));
}

/**
 * Samples the backends every 500 ms while a sync runs: the pool closes idle connections (and autovacuum workers
 * come and go), so a process seen only in the middle of the run still counts (up to its last sample).
 */
async function sampleBackendCpu(pool: Pool, dbName: string, background = false): Promise<() => Promise<number>> {
  const before = await backendCpu(pool, dbName, background);
  const last = new Map<number, number>();
  const sample = async () => {
    for (const [pid, cpu] of await backendCpu(pool, dbName, background)) last.set(pid, cpu);
  };
  const timer = setInterval(() => void sample().catch(() => {}), 500);
  return async () => {
    clearInterval(timer);
    await sample();
    let s = 0;
    for (const [pid, cpu] of last) s += cpu - (before.get(pid) ?? 0);
    return s;
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface Span {
  type: string;
  start: number;
  end: number;
}

/** Every activity attempt of the workflow's history that completed: its type, start and end (ms since epoch). */
async function stepSpans(handle: { fetchHistory(): Promise<temporal.api.history.v1.IHistory> }): Promise<Span[]> {
  const ms = (t: google.protobuf.ITimestamp | null | undefined) =>
    Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
  const scheduled = new Map<string, string>();
  const started = new Map<string, number>();
  const spans: Span[] = [];
  for (const e of (await handle.fetchHistory()).events ?? []) {
    const id = String(e.eventId);
    if (e.activityTaskScheduledEventAttributes)
      scheduled.set(id, e.activityTaskScheduledEventAttributes.activityType?.name ?? '?');
    else if (e.activityTaskStartedEventAttributes)
      started.set(String(e.activityTaskStartedEventAttributes.scheduledEventId), ms(e.eventTime));
    else if (e.activityTaskCompletedEventAttributes) {
      const sid = String(e.activityTaskCompletedEventAttributes.scheduledEventId);
      spans.push({ type: scheduled.get(sid) ?? '?', start: started.get(sid) ?? 0, end: ms(e.eventTime) });
    }
  }
  return spans;
}

/**
 * Where the wall time of the batch pipeline goes: per activity type, the sum of its attempts' durations, and for
 * parseBatch and writeBatch the time between the first parse's start and the last write's end when that step was
 * not running (the other side of the pipeline is the critical path then).
 */
function printStepTimeline(spans: Span[]): void {
  const byType = new Map<string, { n: number; ms: number }>();
  for (const sp of spans) {
    const t = byType.get(sp.type) ?? { n: 0, ms: 0 };
    t.n++;
    t.ms += sp.end - sp.start;
    byType.set(sp.type, t);
  }
  console.log(
    `  activities (attempts, summed time): ${[...byType].map(([k, v]) => `${k} ${v.n}× ${(v.ms / 1000).toFixed(2)} s`).join(', ')}`,
  );
  const parse = spans.filter((s) => s.type === 'parseBatch');
  const write = spans.filter((s) => s.type === 'writeBatch');
  if (parse.length === 0 || write.length === 0) return;
  const from = Math.min(...parse.map((s) => s.start));
  const to = Math.max(...write.map((s) => s.end));
  const idle = (busy: Span[]) => to - from - busy.reduce((a, s) => a + (s.end - s.start), 0);
  console.log(
    `  batch pipeline ${((to - from) / 1000).toFixed(2)} s: no parse running for ${(idle(parse) / 1000).toFixed(2)} s, no write running for ${(idle(write) / 1000).toFixed(2)} s`,
  );
}

async function main() {
  const t0 = Date.now();
  const repo = snapshotOf(goSrc);
  const files = Number(
    execFileSync('git', ['-C', repo, 'ls-files'], { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n').length - 1,
  );
  console.log(`repository: ${goSrc} → ${repo} (${fmt(files)} tracked files; prepared in ${Date.now() - t0} ms)`);
  const db = await createTestDatabase();
  const standin = await startModelHost({}, createLogger('model-host', { level: 'warning' }));
  const { client, close } = await connectClient();
  const taskQueue = uniqueTaskQueue('bench');
  const cloneDir = mkdtempSync(join(tmpdir(), 'ckg-bench-clones-'));
  const worker = await startWorkerProcess(
    {
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: testEnv.temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      EMBEDDING_URL: standin.embeddingUrl,
      WORKER_CLONE_DIR: cloneDir,
      LOG_LEVEL: 'info',
    },
    undefined,
    workerNodeArgs,
  );
  try {
    const runs: Array<[string, boolean]> = [];
    for (let i = 0; i < repeat; i++) runs.push([`without embeddings${repeat > 1 ? ` #${i + 1}` : ''}`, false]);
    if (withEmbeddings) runs.push(['with the model-host stand-in', true]);
    const summary: Array<{
      wall: number;
      parsing: number;
      graphing: number;
      workerCpu: number;
      dbCpu: number;
      bgCpu: number;
    }> = [];
    for (const [n, [label, embeddings]] of runs.entries()) {
      const sourceId = await insertSource(db.pool, {
        url: repo,
        owner: 'golang',
        name: `go-${embeddings}-${n}`,
        config: { embeddings },
      });
      const syncId = await insertPendingSync(db.pool, sourceId);
      const before = standin.stats().embeddings;
      const load0 = loadavg()[0]!;
      const workerCpu0 = cpuOfPid(worker.child.pid!, undefined, true);
      const threads0 = threadCpu(worker.child.pid!);
      const dbCpuDone = await sampleBackendCpu(db.pool, db.name);
      const bgCpuDone = await sampleBackendCpu(db.pool, db.name, true);
      const started = Date.now();
      const handle = await client.workflow.start<typeof syncWorkflow>(
        SYNC_WORKFLOW_TYPE,
        syncStartOptions({
          syncId,
          sourceId,
          sourceName: `golang/go-${embeddings}`,
          ref: 'main',
          trigger: 'bench',
          taskQueue,
        }),
      );
      const result = await resultOf(handle);
      const wall = Date.now() - started;
      const workerCpu = cpuOfPid(worker.child.pid!, undefined, true) - workerCpu0;
      const threads = threadBreakdown(worker.child.pid!, threads0);
      const dbCpu = await dbCpuDone();
      const bgCpu = await bgCpuDone();
      if (result.status !== 'completed') throw new Error(`sync ${result.status}: ${result.error ?? ''}`);
      const stats = (await db.pool.query<{ stats: SyncStats }>(`SELECT stats FROM sync_runs WHERE id = $1`, [syncId]))
        .rows[0]!.stats;
      const counts = await syncCounts(db.pool, syncId);
      const d = stats.durations_ms;
      const s = (ms: number | undefined) => (ms ?? 0) / 1000;
      const edges = counts.depends_on + counts.defines;
      const vertices = counts.file_vertices + counts.symbol_vertices;
      console.log(`\n== sync ${label}: ${(wall / 1000).toFixed(1)} s wall (workflow start → result)`);
      console.log(
        `  CPU: worker (with git) ${workerCpu.toFixed(1)} s, database backends ${dbCpu.toFixed(1)} s, database background ${bgCpu.toFixed(1)} s; load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
      );
      console.log(`  worker CPU by thread: ${threads}`);
      if (!embeddings) {
        summary.push({ wall, parsing: d.parsing ?? 0, graphing: d.graphing ?? 0, workerCpu, dbCpu, bgCpu });
      }
      for (const phase of [
        'cloning',
        'parsing',
        'graphing',
        'embedding_summaries',
        'embedding_chunks',
        'finalizing',
        'total',
      ] as const) {
        if (d[phase] !== undefined) console.log(`  ${phase.padEnd(20)} ${s(d[phase]).toFixed(2).padStart(8)} s`);
      }
      console.log(
        `  files ${fmt(counts.files)}, chunks ${fmt(counts.chunks)}, vertices ${fmt(vertices)}, edges ${fmt(edges)} (depends_on ${fmt(counts.depends_on)}, defines ${fmt(counts.defines)}), issues ${counts.issues}`,
      );
      console.log(
        `  parsing+rows: ${fmt(counts.files / s(d.parsing))} files/s, ${fmt((counts.files + counts.chunks) / s(d.parsing))} rows/s`,
      );
      console.log(
        `  graphing phase (depends_on edges; vertices and defines are written with each batch while parsing): ${fmt(counts.depends_on / s(d.graphing))} edges/s; all graph rows over parsing+graphing: ${fmt((edges + vertices) / (s(d.parsing) + s(d.graphing)))} rows/s (bench/store.ts isolates the writers)`,
      );
      console.log(`  whole sync:   ${fmt(counts.files / (wall / 1000))} files/s`);
      printStepTimeline(await stepSpans(handle));
      if (embeddings) {
        // Client overhead: the same texts (a sample of the run's chunk inputs) sent by bare fetch (the stand-in's
        // own time, as seen by a caller) and by EmbeddingClient, same batch size and concurrency; best of two each.
        const texts = (
          await db.pool.query<{ content: string }>(
            `SELECT content FROM content_chunks WHERE sync_id = $1 ORDER BY id LIMIT 8192`,
            [syncId],
          )
        ).rows.map((r) => chunkEmbeddingInput(r.content));
        const raw = async () => {
          const t = performance.now();
          let next = 0;
          await Promise.all(
            Array.from({ length: 4 }, async () => {
              while (next < texts.length) {
                const input = texts.slice(next, (next += 64));
                const res = await fetch(standin.embeddingUrl, {
                  method: 'POST',
                  headers: { 'content-type': 'application/json' },
                  body: JSON.stringify({ model: 'embeddings', input }),
                });
                const body = (await res.json()) as { data: unknown[] };
                if (body.data.length !== input.length) throw new Error('short answer');
              }
            }),
          );
          return performance.now() - t;
        };
        const clientRun = async () => {
          const c = new EmbeddingClient({
            url: standin.embeddingUrl,
            model: 'embeddings',
            dimension: 896,
            batchSize: 64,
            concurrency: 4,
          });
          const t = performance.now();
          await c.embedMany(texts);
          return performance.now() - t;
        };
        const inputs = standin.stats().embeddings.inputs - before.inputs;
        const phaseMs = (d.embedding_summaries ?? 0) + (d.embedding_chunks ?? 0);
        const rawMs = Math.min(await raw(), await raw());
        const clientMs = Math.min(await clientRun(), await clientRun());
        console.log(
          `  embedding client: ${fmt(texts.length)} inputs, bare fetch ${(rawMs / 1000).toFixed(2)} s, EmbeddingClient ${(clientMs / 1000).toFixed(2)} s → overhead ${(((clientMs - rawMs) / rawMs) * 100).toFixed(1)} %`,
        );
        console.log(
          `  embedding phases: ${fmt(inputs)} inputs in ${(phaseMs / 1000).toFixed(2)} s (${fmt(inputs / (phaseMs / 1000))} inputs/s, vector backfill and the HNSW index included)`,
        );
        console.log(
          `  vectors: files ${fmt(counts.files_with_vector)}/${fmt(counts.files)}, chunks ${fmt(counts.chunks_with_vector)}/${fmt(counts.chunks)}`,
        );
      }
      console.log(`  worker peak RSS so far: ${peakRssMb(worker.child.pid!)} MB`);
    }
    if (summary.length > 1) {
      const m = (k: keyof (typeof summary)[number]) => median(summary.map((x) => x[k]));
      console.log(
        `\n== medians of ${summary.length} syncs without embeddings: wall ${(m('wall') / 1000).toFixed(1)} s, parsing ${(m('parsing') / 1000).toFixed(1)} s, graphing ${(m('graphing') / 1000).toFixed(1)} s, worker CPU (with git) ${m('workerCpu').toFixed(1)} s, database CPU ${m('dbCpu').toFixed(1)} s (+ background ${m('bgCpu').toFixed(1)} s)`,
      );
    }
  } finally {
    await worker.kill('SIGTERM');
    await close();
    await standin.close();
    await db.drop();
    rmSync(cloneDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
