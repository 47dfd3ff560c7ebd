/**
 * Benchmark of a full sync: a git copy of the Go standard library ($(go env GOROOT)/src, ≈11k files) synced from
 * local disk by the worker running as its own process — first without embeddings (source config
 * `embeddings: false`), then with the project's model-host stand-in (standins/model-host, in this process) as the
 * embedding endpoint. Prints wall time per phase, files/s, rows/s, edges/s, the worker's peak RSS, and the
 * embedding client's overhead over the stand-in's own time.
 *
 * CPU time is printed beside wall time (the machine is shared, so wall time moves with the load): the worker
 * process's (all threads) and the database backends' serving the bench database (connections open at the end).
 *
 *   DATABASE_URL=... TEMPORAL_ADDRESS=... node --import tsx bench/sync.ts [--no-embeddings] [--src DIR] [--runs N]
 *
 * --runs N repeats the sync without embeddings N times (a new source each time) and prints the medians.
 * --cpu-prof DIR writes the worker's V8 CPU profiles (main thread and parse threads) into DIR when it stops.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
import { chunkEmbeddingInput } from '../activities/engine/index.ts';
import { EmbeddingClient } from '../lib/embeddings.ts';
import type { Pool } from '../lib/db.ts';
import { snapshotOf } from './support/snapshot.ts';

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

const TICKS_PER_SECOND = 100;

/** utime + stime of a process (all its threads, ended ones included), in seconds. */
function cpuOfPid(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND;
  } catch {
    return 0; // the process ended
  }
}

/** CPU seconds used so far by each backend serving the database, keyed by pid. */
async function backendCpu(pool: Pool, dbName: string): Promise<Map<number, number>> {
  const res = await pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [dbName],
  );
  return new Map(res.rows.map((r) => [r.pid, cpuOfPid(r.pid)]));
}

/**
 * Samples the backends every 500 ms while a sync runs: the pool closes idle connections, so a backend seen only in
 * the middle of the run still counts (up to its last sample).
 */
function sampleBackendCpu(pool: Pool, dbName: string, before: Map<number, number>): () => Promise<number> {
  const last = new Map<number, number>();
  const sample = async () => {
    for (const [pid, cpu] of await backendCpu(pool, dbName)) last.set(pid, cpu);
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
    const summary: Array<{ wall: number; parsing: number; graphing: number; workerCpu: number; dbCpu: number }> = [];
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
      const workerCpu0 = cpuOfPid(worker.child.pid!);
      const dbCpuDone = sampleBackendCpu(db.pool, db.name, await backendCpu(db.pool, db.name));
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
      const result = await handle.result();
      const wall = Date.now() - started;
      const workerCpu = cpuOfPid(worker.child.pid!) - workerCpu0;
      const dbCpu = await dbCpuDone();
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
        `  CPU: worker ${workerCpu.toFixed(1)} s, database backends ${dbCpu.toFixed(1)} s; load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
      );
      if (!embeddings) summary.push({ wall, parsing: d.parsing ?? 0, graphing: d.graphing ?? 0, workerCpu, dbCpu });
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
        `\n== medians of ${summary.length} syncs without embeddings: wall ${(m('wall') / 1000).toFixed(1)} s, parsing ${(m('parsing') / 1000).toFixed(1)} s, graphing ${(m('graphing') / 1000).toFixed(1)} s, worker CPU ${m('workerCpu').toFixed(1)} s, database CPU ${m('dbCpu').toFixed(1)} s`,
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
